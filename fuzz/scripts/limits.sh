# The libFuzzer limits every run of a target uses (run_bounded.sh in CI, run_fuzzer.sh for the
# long runs), sourced by both: `fuzz_limits <target>` prints them.
#
# -max_len: the Avro targets read messages of up to 128 KiB (their decoders' message limit),
#   so that inputs of 64 KiB and more reach the bounds per message (issue 25: a 64 KiB
#   container of null items decoded into gigabytes); the JSON targets stay at 4 KiB.
# -malloc_limit_mb: no single allocation of a decoder may come near 64 MiB (their limits are
#   128 KiB a message; the output bound is 64 units a byte of it): one that does is a finding
#   at once, before the RSS limit is reached.
fuzz_limits() {
  case "$1" in
    datastream_avro | confluent_avro) max_len=131072 ;;
    *) max_len=4096 ;;
  esac
  echo "-max_len=$max_len -malloc_limit_mb=64 -rss_limit_mb=2048 -timeout=10"
}

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;

/**
 * RestCheck --self-test: the checker itself, on canned answers (the worker's taken from a real
 * Connect 4.1.1 worker), without any service. Each case states whether Connect's strict parsing
 * accepts "sluice's" answer and which differences the key-tree comparison must find: a missing
 * key that strict parsing lets through, an extra key that both catch, a number where a string
 * belongs, maps of different keys that are alike, an element of a different shape, a
 * connector-keyed object, a null version, an empty array. A checker that passes everything
 * fails here.
 */
final class SelfTest {
  private SelfTest() {}

  private record Case(String name, Entities.Kind kind, String worker, String sluice,
      Set<String> stringMaps, Set<String> byName, boolean parses, List<String> differences) {}

  private static final String STATE = """
      {"name":"w","connector":{"state":"RUNNING","worker_id":"127.0.0.1:8083",
      "version":"3.6.0.Final"},"tasks":[{"id":0,"state":"RUNNING","worker_id":"127.0.0.1:8083",
      "version":"3.6.0.Final"}],"type":"sink"}""";

  private static final String INFO = """
      {"name":"w","config":{"connector.class":"io.debezium.connector.jdbc.JdbcSinkConnector",
      "tasks.max":"1","topics":"t","name":"w"},"tasks":[{"connector":"w","task":0}],
      "type":"sink"}""";

  private static final List<Case> CASES = List.of(
      new Case("identical status answers are alike", Entities.Kind.STATE, STATE,
          STATE.replace("\"w\"", "\"s\""), Set.of(), Set.of(), true, List.of()),
      new Case("a missing task version passes strict parsing, not the comparison",
          Entities.Kind.STATE, STATE,
          STATE.replace(",\n\"version\":\"3.6.0.Final\"}]", "}]"), Set.of(), Set.of(), true,
          List.of("$.tasks[].version missing on sluice")),
      new Case("an extra key fails strict parsing and the comparison", Entities.Kind.STATE, STATE,
          STATE.replace("\"type\":\"sink\"", "\"type\":\"sink\",\"degraded\":false"), Set.of(),
          Set.of(), false, List.of("$.degraded extra on sluice")),
      new Case("worker_id missing at both levels is named with both paths", Entities.Kind.STATE,
          STATE, STATE.replace("\"worker_id\":\"127.0.0.1:8083\",\n\"version\"", "\"version\""),
          Set.of(), Set.of(), true,
          List.of("$.connector.worker_id missing on sluice", "$.tasks[].worker_id missing")),
      new Case("/topics with a key ActiveTopicsInfo does not have", Entities.Kind.TOPICS,
          "{\"w\":{\"topics\":[\"t\"]}}", "{\"s\":{\"topics\":[\"t\"],\"partitions\":[0]}}",
          Set.of(), Set.of("$"), false, List.of("$.{n}.partitions extra on sluice")),
      new Case("configs with other keys are alike maps", Entities.Kind.CONNECTOR_INFO, INFO,
          INFO.replace("\"tasks.max\":\"1\"", "\"format\":\"debezium\",\"batch.size\":\"500\""),
          Set.of("$.config"), Set.of(), true, List.of()),
      new Case("a number in a config map fails both", Entities.Kind.CONNECTOR_INFO, INFO,
          INFO.replace("\"tasks.max\":\"1\"", "\"tasks.max\":1"), Set.of("$.config"), Set.of(),
          false, List.of("$.config.tasks.max is an integer on sluice")),
      new Case("a task id of another shape is found in the first element",
          Entities.Kind.CONNECTOR_INFO, INFO,
          INFO.replace("{\"connector\":\"w\",\"task\":0}", "{\"connector\":\"w\",\"id\":0}"),
          Set.of("$.config"), Set.of(), false,
          List.of("$.tasks[].id extra on sluice", "$.tasks[].task missing on sluice")),
      new Case("/topics keyed by each side's connector name", Entities.Kind.TOPICS,
          "{\"w\":{\"topics\":[\"t\"]},\"other\":{\"topics\":[]}}", "{\"s\":{\"topics\":[\"t\"]}}",
          Set.of(), Set.of("$"), true, List.of()),
      new Case("/topics without sluice's name", Entities.Kind.TOPICS,
          "{\"w\":{\"topics\":[\"t\"]}}", "{\"sluice\":{\"topics\":[\"t\"]}}", Set.of(),
          Set.of("$"), true, List.of("$.{n} sluice's answer has no key s")),
      new Case("a string offset where the worker has an integer", Entities.Kind.OFFSETS,
          "{\"offsets\":[{\"partition\":{\"kafka_partition\":0,\"kafka_topic\":\"t\"},"
              + "\"offset\":{\"kafka_offset\":5}}]}",
          "{\"offsets\":[{\"partition\":{\"kafka_partition\":0,\"kafka_topic\":\"t\"},"
              + "\"offset\":{\"kafka_offset\":\"5\"}}]}",
          Set.of(), Set.of(), true,
          List.of("$.offsets[].offset.kafka_offset is a string on sluice, an integer on the")),
      new Case("a null version while restarting matches a string", Entities.Kind.STATE,
          STATE.replaceFirst("\"version\":\"3.6.0.Final\"", "\"version\":null"), STATE,
          Set.of(), Set.of(), true, List.of()),
      new Case("no offsets where the worker has some", Entities.Kind.OFFSETS,
          "{\"offsets\":[{\"partition\":{\"kafka_partition\":0,\"kafka_topic\":\"t\"},"
              + "\"offset\":{\"kafka_offset\":5}}]}",
          "{\"offsets\":[]}", Set.of(), Set.of(), true,
          List.of("$.offsets has 0 elements on sluice, 1 on the worker")),
      new Case("a plugin list of Connect's shape", Entities.Kind.PLUGINS,
          "[{\"class\":\"io.debezium.connector.jdbc.JdbcSinkConnector\",\"type\":\"sink\","
              + "\"version\":\"3.6.0.Final\"}]",
          "[{\"class\":\"sluice\",\"type\":\"sink\",\"version\":\"0.1.0\"}]", Set.of(), Set.of(),
          true, List.of()),
      new Case("a plugin type Connect does not write", Entities.Kind.PLUGINS,
          "[{\"class\":\"io.debezium.connector.jdbc.JdbcSinkConnector\",\"type\":\"sink\","
              + "\"version\":\"3.6.0.Final\"}]",
          "[{\"class\":\"sluice\",\"type\":\"SINK\",\"version\":\"0.1.0\"}]", Set.of(), Set.of(),
          false, List.of()),
      new Case("an error body with Connect's keys", Entities.Kind.ERROR,
          "{\"error_code\":404,\"message\":\"Connector nope not found\"}",
          "{\"error_code\":404,\"message\":\"no connector nope\"}", Set.of(), Set.of(), true,
          List.of()),
      new Case("an error body of another shape", Entities.Kind.ERROR,
          "{\"error_code\":404,\"message\":\"Connector nope not found\"}",
          "{\"error\":\"not found\"}", Set.of(), Set.of(), false,
          List.of("$.error extra on sluice", "$.error_code missing on sluice",
              "$.message missing on sluice")),
      new Case("expand=status&expand=info keyed by name, info's config a map",
          Entities.Kind.EXPANDED,
          "{\"w\":{\"status\":" + STATE + ",\"info\":" + INFO + "}}",
          "{\"s\":{\"status\":" + STATE.replace("\"w\"", "\"s\"") + ",\"info\":"
              + INFO.replace("\"tasks.max\":\"1\",", "") + "}}",
          Set.of("$.{n}.info.config"), Set.of("$"), true, List.of()),
      new Case("expand without info", Entities.Kind.EXPANDED,
          "{\"w\":{\"status\":" + STATE + ",\"info\":" + INFO + "}}",
          "{\"s\":{\"status\":" + STATE + "}}", Set.of("$.{n}.info.config"), Set.of("$"), true,
          List.of("$.{n}.info missing on sluice")));

  /** Runs every case; returns the number that failed. */
  static int run(PrintStream out) {
    ObjectMapper plain = new ObjectMapper();
    int failed = 0;
    for (Case c : CASES) {
      String problem = null;
      try {
        String workerParse = Entities.check(c.kind(), c.worker());
        String sluiceParse = Entities.check(c.kind(), c.sluice());
        List<String> found =
            new ShapeDiff(c.stringMaps(), c.byName(), "w", "s")
                .compare(plain.readTree(c.worker()), plain.readTree(c.sluice()));
        if (workerParse != null) {
          problem = "the worker's answer does not parse: " + workerParse;
        } else if ((sluiceParse == null) != c.parses()) {
          problem = c.parses() ? "strict parsing refused it: " + sluiceParse
              : "strict parsing accepted it";
        } else if (found.size() != c.differences().size()
            || !c.differences().stream().allMatch(
                want -> found.stream().anyMatch(d -> d.startsWith(want)))) {
          problem = "found " + found + ", wanted " + c.differences();
        }
      } catch (Exception e) {
        problem = "threw " + e;
      }
      out.println((problem == null ? "ok    " : "FAIL  ") + c.name()
          + (problem == null ? "" : ": " + problem));
      if (problem != null) failed++;
    }
    out.println(failed == 0 ? "self-test: " + CASES.size() + " cases ok"
        : "self-test: " + failed + " of " + CASES.size() + " cases failed");
    return failed;
  }
}

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The session an operator runs through Connect's REST API, played against the Connect worker
 * and against sluice side by side, in this order:
 *
 *   read everything while RUNNING (/, /connectors, ?expand=status&expand=info and each alone,
 *     the connector, its config, status, tasks, topics, task 0's status, /connector-plugins,
 *     offsets);
 *   an unknown connector (404: read, status, offsets, pause, restart) and task (404); DELETE
 *     and PATCH offsets while RUNNING (refused, 400);
 *   pause (bearer token, then HTTP Basic) -> PAUSED; resume -> RUNNING;
 *   stop -> STOPPED without tasks (none listed, task 0's status 404); offsets read, PATCHed
 *     to K, cleared with null, DELETEd;
 *   resume -> RUNNING; restart, restart?includeTasks=true&onlyFailed=false, task 0's restart;
 *   with sluiceChecks, what only sluice does: writes without or with a wrong token refused
 *   (401), POST /connectors, PUT config and DELETE refused (409: sluice's config is a file).
 *
 * For every call: both status codes must be equal, each body must parse as its Connect entity
 * (Entities), and sluice's key tree must equal the worker's (ShapeDiff). A few values are
 * checked too, where tools read them: the states reached, the connector's name and type, its
 * "topics" as Connect's comma-separated list, the offsets after each change, the Kafka cluster
 * id (both sides consume from one broker), and, with sluiceChecks, that no answer holds the
 * token. Each call prints one line, each difference one more. Single-threaded; run() once.
 */
final class Session {
  static final int OFFSET_K = 1;  // PATCHed offset: below what both sides consumed
  private static final String NO_SUCH = "rest-check-no-such-connector";
  private static final ObjectMapper PLAIN = new ObjectMapper();

  private final Side _worker;
  private final Side _sluice;
  private final String _topic;
  private final boolean _sluiceChecks;
  private final PrintStream _out;
  private int _differences = 0;
  private final List<String> _codes = new ArrayList<>();  // the summary table

  Session(Side worker, Side sluice, String topic, boolean sluiceChecks, PrintStream out) {
    _worker = worker;
    _sluice = sluice;
    _topic = topic;
    _sluiceChecks = sluiceChecks;
    _out = out;
  }

  /** Runs every call; returns the number of differences and failures (0: alike). */
  int run() throws IOException {
    runningReads();
    refusals();
    pauseAndResume();
    stopAndOffsets();
    restarts();
    if (_sluiceChecks) sluiceOnly();
    _out.println();
    _out.println("status codes (worker / sluice):");
    _codes.forEach(line -> _out.println("  " + line));
    _out.println(_differences == 0
        ? "rest-check: sluice's answers match the worker's"
        : "rest-check: " + _differences + " difference(s)");
    return _differences;
  }

  private void runningReads() throws IOException {
    phase("RUNNING: every read");
    waitState("RUNNING", true);
    Pair names = same("GET", "/connectors", Entities.Kind.NAMES);
    each(names, (side, a) -> expect(side,
        a.status() != 200 || json(a).toString().contains("\"" + side.connector + "\""),
        "GET /connectors does not list " + side.connector));
    if (_sluiceChecks) {
      expect(_sluice, json(names.sluice()).size() == 1, "GET /connectors lists more than itself: "
          + names.sluice().body());
    }
    Pair server = same("GET", "/", Entities.Kind.SERVER_INFO);
    // Both consume from the same broker: a tool matching Connect clusters to Kafka clusters
    // reads this id.
    expect(_sluice, text(server.sluice(), "kafka_cluster_id")
        .equals(text(server.worker(), "kafka_cluster_id")), "kafka_cluster_id is '"
        + text(server.sluice(), "kafka_cluster_id") + "', the broker's (as the worker says) '"
        + text(server.worker(), "kafka_cluster_id") + "'");
    Pair expanded = same("GET", "/connectors?expand=status&expand=info", Entities.Kind.EXPANDED,
        Set.of("$.{n}.info.config"), Set.of("$"));
    if (_sluiceChecks) {
      expect(_sluice, json(expanded.sluice()).size() == 1,
          "?expand= answers for more than itself: " + clip(expanded.sluice().body()));
    }
    // What UIs ask when they want one half only.
    same("GET", "/connectors?expand=status", Entities.Kind.EXPANDED, Set.of(), Set.of("$"));
    same("GET", "/connectors?expand=info", Entities.Kind.EXPANDED, Set.of("$.{n}.info.config"),
        Set.of("$"));
    Pair info = same("GET", "/connectors/{n}", Entities.Kind.CONNECTOR_INFO, Set.of("$.config"),
        Set.of());
    each(info, (side, a) -> {
      expect(side, text(a, "name").equals(side.connector), "name is not " + side.connector);
      expect(side, text(a, "type").equals("sink"), "type is not sink: " + text(a, "type"));
    });
    Pair config = same("GET", "/connectors/{n}/config", Entities.Kind.CONFIG, Set.of("$"),
        Set.of());
    // Connect's "topics" is a comma-separated list, which tools split on commas.
    each(config, (side, a) -> expect(side, text(a, "topics").equals(_topic),
        "config \"topics\" is '" + text(a, "topics") + "', not Connect's list form '" + _topic
            + "'"));
    same("GET", "/connectors/{n}/status", Entities.Kind.STATE);
    same("GET", "/connectors/{n}/tasks", Entities.Kind.TASKS, Set.of("$[].config"), Set.of());
    Pair topics = same("GET", "/connectors/{n}/topics", Entities.Kind.TOPICS, Set.of(),
        Set.of("$"));
    each(topics, (side, a) -> expect(side, json(a).path(side.connector).path("topics").toString()
        .contains("\"" + _topic + "\""), "/topics does not list " + _topic));
    same("GET", "/connectors/{n}/tasks/0/status", Entities.Kind.TASK_STATE);
    same("GET", "/connector-plugins", Entities.Kind.PLUGINS);
    Pair offsets = same("GET", "/connectors/{n}/offsets", Entities.Kind.OFFSETS);
    each(offsets, (side, a) -> expect(side, offsetOf(a) >= 0,
        "no offset for " + _topic + "/0 while RUNNING: " + a.body()));
  }

  private void refusals() throws IOException {
    phase("RUNNING: refusals");
    same("GET", "/connectors/" + NO_SUCH, Entities.Kind.CONNECTOR_INFO);
    same("GET", "/connectors/" + NO_SUCH + "/status", Entities.Kind.STATE);
    same("GET", "/connectors/" + NO_SUCH + "/offsets", Entities.Kind.OFFSETS);
    same("PUT", "/connectors/" + NO_SUCH + "/pause", Side.Auth.BEARER, null, Entities.Kind.NONE);
    same("POST", "/connectors/" + NO_SUCH + "/restart", Side.Auth.BEARER, null,
        Entities.Kind.NONE);
    same("POST", "/connectors/{n}/tasks/99/restart", Side.Auth.BEARER, null, Entities.Kind.NONE);
    same("DELETE", "/connectors/{n}/offsets", Side.Auth.BEARER, null, Entities.Kind.MESSAGE);
    same("PATCH", "/connectors/{n}/offsets", Side.Auth.BEARER, offsetsBody(OFFSET_K),
        Entities.Kind.MESSAGE);
  }

  private void pauseAndResume() throws IOException {
    phase("pause (the second time through HTTP Basic), resume");
    same("PUT", "/connectors/{n}/pause", Side.Auth.BEARER, null, Entities.Kind.NONE);
    same("PUT", "/connectors/{n}/pause", Side.Auth.BASIC, null, Entities.Kind.NONE);
    waitState("PAUSED", true);
    same("GET", "/connectors/{n}/status", Entities.Kind.STATE);
    same("PUT", "/connectors/{n}/resume", Side.Auth.BEARER, null, Entities.Kind.NONE);
    waitState("RUNNING", true);
  }

  private void stopAndOffsets() throws IOException {
    phase("stop; offsets while STOPPED; resume");
    same("PUT", "/connectors/{n}/stop", Side.Auth.BEARER, null, Entities.Kind.NONE);
    waitState("STOPPED", false);
    same("GET", "/connectors/{n}/status", Entities.Kind.STATE);
    // A stopped connector has no task: none listed, none to ask the status of.
    same("GET", "/connectors/{n}", Entities.Kind.CONNECTOR_INFO, Set.of("$.config"), Set.of());
    same("GET", "/connectors/{n}/tasks", Entities.Kind.TASKS, Set.of("$[].config"), Set.of());
    same("GET", "/connectors/{n}/tasks/0/status", Entities.Kind.TASK_STATE);
    Pair stopped = same("GET", "/connectors/{n}/offsets", Entities.Kind.OFFSETS);
    each(stopped, (side, a) -> expect(side, offsetOf(a) >= 0,
        "no offset for " + _topic + "/0 while STOPPED: " + a.body()));

    same("PATCH", "/connectors/{n}/offsets", Side.Auth.BEARER, offsetsBody(OFFSET_K),
        Entities.Kind.MESSAGE);
    Pair patched = same("GET", "/connectors/{n}/offsets", Entities.Kind.OFFSETS);
    each(patched, (side, a) -> expect(side, offsetOf(a) == OFFSET_K,
        "after PATCH the offset of " + _topic + "/0 is not " + OFFSET_K + ": " + a.body()));

    same("PATCH", "/connectors/{n}/offsets", Side.Auth.BEARER, offsetsBody(null),
        Entities.Kind.MESSAGE);
    Pair cleared = same("GET", "/connectors/{n}/offsets", Entities.Kind.OFFSETS);
    each(cleared, (side, a) -> expect(side, offsetOf(a) == -1,
        "after PATCH with a null offset " + _topic + "/0 is still there: " + a.body()));

    // Something to reset: a DELETE of nothing would prove little.
    same("PATCH", "/connectors/{n}/offsets", Side.Auth.BEARER, offsetsBody(OFFSET_K),
        Entities.Kind.MESSAGE);
    same("DELETE", "/connectors/{n}/offsets", Side.Auth.BEARER, null, Entities.Kind.MESSAGE);
    Pair reset = same("GET", "/connectors/{n}/offsets", Entities.Kind.OFFSETS);
    each(reset, (side, a) -> expect(side, offsetOf(a) == -1,
        "after DELETE " + _topic + "/0 still has an offset: " + a.body()));

    same("PUT", "/connectors/{n}/resume", Side.Auth.BEARER, null, Entities.Kind.NONE);
    waitState("RUNNING", true);
  }

  private void restarts() throws IOException {
    phase("restarts");
    same("POST", "/connectors/{n}/restart", Side.Auth.BEARER, null, Entities.Kind.NONE);
    waitState("RUNNING", true);
    same("POST", "/connectors/{n}/restart?includeTasks=true&onlyFailed=false", Side.Auth.BEARER,
        null, Entities.Kind.STATE);
    waitState("RUNNING", true);
    same("POST", "/connectors/{n}/tasks/0/restart", Side.Auth.BEARER, null, Entities.Kind.NONE);
    waitState("RUNNING", true);
  }

  // What a Connect worker without a security extension would accept, so sluice alone is asked.
  private void sluiceOnly() throws IOException {
    phase("sluice only: writes without the token, config writes");
    sluiceAlone("PUT", "/connectors/{n}/pause", Side.Auth.NONE, null, 401);
    Side wrong = new Side("sluice", _sluice.baseUrl, _sluice.connector, "not-the-token");
    sluiceAlone(wrong, "PUT", "/connectors/{n}/pause", Side.Auth.BEARER, null, 401);
    sluiceAlone(wrong, "PUT", "/connectors/{n}/pause", Side.Auth.BASIC, null, 401);
    String create = "{\"name\":\"" + _sluice.connector + "-2\",\"config\":{\"topics\":\""
        + _topic + "\"}}";
    sluiceAlone("POST", "/connectors", Side.Auth.BEARER, create, 409);
    sluiceAlone("PUT", "/connectors/{n}/config", Side.Auth.BEARER, "{\"topics\":\"" + _topic
        + "\"}", 409);
    sluiceAlone("DELETE", "/connectors/{n}", Side.Auth.BEARER, null, 409);
    waitState("RUNNING", true);  // a refused pause must not have paused it
  }

  // ---------------------------------------------------------------------------------------
  // One call on both sides
  // ---------------------------------------------------------------------------------------

  record Pair(Side.Answer worker, Side.Answer sluice) {}

  interface PerSide {
    void check(Side side, Side.Answer answer);
  }

  private Pair same(String method, String path, Entities.Kind kind) throws IOException {
    return same(method, path, Side.Auth.NONE, null, kind, Set.of(), Set.of());
  }

  private Pair same(String method, String path, Entities.Kind kind, Set<String> stringMaps,
      Set<String> byName) throws IOException {
    return same(method, path, Side.Auth.NONE, null, kind, stringMaps, byName);
  }

  private Pair same(String method, String path, Side.Auth auth, String body, Entities.Kind kind)
      throws IOException {
    return same(method, path, auth, body, kind, Set.of(), Set.of());
  }

  /** kind: the entity of a 2xx answer; an error status is read as ErrorMessage. */
  private Pair same(String method, String path, Side.Auth auth, String body, Entities.Kind kind,
      Set<String> stringMaps, Set<String> byName) throws IOException {
    Side.Answer w = _worker.call(method, path, body, auth);
    Side.Answer s = _sluice.call(method, path, body, auth);
    leaks(s);
    String call = method + " " + path + (auth == Side.Auth.NONE ? ""
        : " (" + auth.name().toLowerCase(Locale.ROOT) + ")") + noteOf(body);
    List<String> lines = new ArrayList<>();
    if (w.status() != s.status()) {
      lines.add("status: sluice " + s.status() + ", the worker " + w.status());
    }
    for (Side side : List.of(_worker, _sluice)) {
      Side.Answer a = side == _worker ? w : s;
      Entities.Kind k = a.status() >= 400 ? Entities.Kind.ERROR : kind;
      String parse = Entities.check(k, a.body());
      if (parse != null) lines.add("parse " + side.label + ": " + parse);
      if (!a.body().isEmpty() && !a.contentType().startsWith("application/json")) {
        lines.add(side.label + ": Content-Type " + a.contentType() + " (not application/json)");
      }
      if (k == Entities.Kind.ERROR && parse == null) {
        int code = json(a).path("error_code").asInt(-1);
        if (code != a.status()) {
          lines.add(side.label + ": error_code " + code + " in a " + a.status() + " answer");
        }
      }
    }
    if (w.body().isEmpty() != s.body().isEmpty()) {
      lines.add("body: sluice " + describe(s) + ", the worker " + describe(w));
    } else if (!w.body().isEmpty()) {
      JsonNode wt = tree(w);
      JsonNode st = tree(s);
      if (wt != null && st != null) {
        new ShapeDiff(stringMaps, byName, _worker.connector, _sluice.connector)
            .compare(wt, st)
            .forEach(d -> lines.add("key " + d));
      }
    }
    report(call, w.status() + "", s.status() + "", lines, w, s);
    return new Pair(w, s);
  }

  private void sluiceAlone(String method, String path, Side.Auth auth, String body, int want)
      throws IOException {
    sluiceAlone(_sluice, method, path, auth, body, want);
  }

  private void sluiceAlone(Side side, String method, String path, Side.Auth auth, String body,
      int want) throws IOException {
    Side.Answer s = side.call(method, path, body, auth);
    leaks(s);
    String call = method + " " + path + " (" + (side == _sluice ? "" : "wrong ")
        + auth.name().toLowerCase(Locale.ROOT) + ", sluice only)";
    List<String> lines = new ArrayList<>();
    if (s.status() != want) lines.add("status: sluice " + s.status() + ", wanted " + want);
    if (s.status() >= 400 && !s.body().isEmpty()) {
      String parse = Entities.check(Entities.Kind.ERROR, s.body());
      if (parse != null) lines.add("parse sluice: " + parse);
    }
    report(call, "-", s.status() + "", lines, null, s);
  }

  private void phase(String name) {
    _out.println("-- " + name);
    _codes.add("-- " + name);
  }

  // A PATCH says which offset it sets.
  private static String noteOf(String body) {
    if (body == null || !body.contains("\"offsets\"")) return "";
    return body.contains("\"offset\":null") ? " offset null"
        : " offset " + body.replaceAll(".*\"kafka_offset\":(\\d+).*", "$1");
  }

  // sluice's http.auth.token is a secret: no answer may hold it (its config shows "***").
  private void leaks(Side.Answer sluiceAnswer) {
    if (_sluiceChecks && !_sluice.token().isEmpty()
        && sluiceAnswer.body().contains(_sluice.token())) {
      expect(_sluice, false, "an answer holds http.auth.token");
    }
  }

  private void report(String call, String w, String s, List<String> lines, Side.Answer wa,
      Side.Answer sa) {
    _out.printf("%-72s worker %-3s sluice %-3s %s%n", call, w, s, lines.isEmpty() ? "ok" : "DIFF");
    _codes.add(String.format("%-72s %s / %s", call, w, s));
    for (String line : lines) _out.println("    - " + line);
    if (!lines.isEmpty()) {
      if (wa != null) _out.println("      worker body: " + clip(wa.body()));
      _out.println("      sluice body: " + clip(sa.body()));
    }
    _differences += lines.size();
  }

  // ---------------------------------------------------------------------------------------
  // States and offsets
  // ---------------------------------------------------------------------------------------

  /** Polls each side's /status (30 s at most) until the connector is in state and its tasks
   *  too (withTasks), or it has none (!withTasks: STOPPED). */
  private void waitState(String state, boolean withTasks) throws IOException {
    Predicate<JsonNode> reached = status -> {
      if (!status.path("connector").path("state").asText().equals(state)) return false;
      JsonNode tasks = status.path("tasks");
      if (!withTasks) return tasks.isArray() && tasks.size() == 0;
      if (!tasks.isArray() || tasks.size() == 0) return false;
      for (JsonNode t : tasks) if (!t.path("state").asText().equals(state)) return false;
      return true;
    };
    List<String> lines = new ArrayList<>();
    List<String> took = new ArrayList<>();
    for (Side side : List.of(_worker, _sluice)) {
      long start = System.nanoTime();
      String last = "";
      boolean ok = false;
      while (System.nanoTime() - start < 30_000_000_000L) {
        Side.Answer a = side.call("GET", "/connectors/{n}/status", null, Side.Auth.NONE);
        last = a.status() + " " + a.body();
        JsonNode t = a.status() == 200 ? tree(a) : null;
        if (t != null && reached.test(t)) {
          ok = true;
          break;
        }
        sleep(200);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      took.add(String.format("%s %.1f s", side.label, seconds));
      if (!ok) {
        lines.add(side.label + ": not " + state + (withTasks ? " with its tasks" : " without tasks")
            + " within 30 s; last answer: " + clip(last));
      }
    }
    String what = "wait: " + state + (withTasks ? ", tasks too" : ", no task");
    _out.printf("%-72s %s %s%n", what + " (" + String.join(", ", took) + ")", "",
        lines.isEmpty() ? "ok" : "DIFF");
    for (String line : lines) _out.println("    - " + line);
    _differences += lines.size();
  }

  private String offsetsBody(Integer offset) {
    return "{\"offsets\":[{\"partition\":{\"kafka_topic\":\"" + _topic
        + "\",\"kafka_partition\":0},\"offset\":"
        + (offset == null ? "null" : "{\"kafka_offset\":" + offset + "}") + "}]}";
  }

  /** The kafka_offset of _topic/0 in a GET offsets answer; -1 when absent or unreadable. */
  private long offsetOf(Side.Answer a) {
    JsonNode t = a.status() == 200 ? tree(a) : null;
    if (t == null) return -1;
    for (JsonNode o : t.path("offsets")) {
      JsonNode p = o.path("partition");
      if (p.path("kafka_topic").asText().equals(_topic)
          && p.path("kafka_partition").asInt(-1) == 0) {
        return o.path("offset").path("kafka_offset").asLong(-1);
      }
    }
    return -1;
  }

  // ---------------------------------------------------------------------------------------
  // Small helpers
  // ---------------------------------------------------------------------------------------

  private void each(Pair p, PerSide check) {
    check.check(_worker, p.worker());
    check.check(_sluice, p.sluice());
  }

  private void expect(Side side, boolean ok, String what) {
    if (ok) return;
    _out.println("    - " + side.label + ": " + what);
    _differences++;
  }

  private static JsonNode tree(Side.Answer a) {
    try {
      return PLAIN.readTree(a.body());
    } catch (IOException e) {
      return null;  // Entities.check has said why
    }
  }

  private static JsonNode json(Side.Answer a) {
    JsonNode t = tree(a);
    return t == null ? PLAIN.missingNode() : t;
  }

  private static String text(Side.Answer a, String key) {
    return json(a).path(key).asText();
  }

  private static String describe(Side.Answer a) {
    return a.body().isEmpty() ? "has no body" : "has a body (" + clip(a.body()) + ")";
  }

  static String clip(String text) {
    return text.length() <= 600 ? text : text.substring(0, 600) + "...";
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

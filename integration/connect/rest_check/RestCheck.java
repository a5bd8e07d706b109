import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * RestCheck: sluice's Kafka Connect REST API against a real Connect worker's (issue 29). Every
 * answer is parsed by Connect's own entity classes (Entities) and compared key by key with the
 * worker's answer to the same call (ShapeDiff), status codes included; Session says which calls.
 *
 *   java -cp <classes>:<connect lib/worker/*> RestCheck \
 *       --worker URL --worker-connector NAME --sluice URL --sluice-connector NAME \
 *       --topic TOPIC [--token TOKEN] [--sluice-checks]
 *   java ... RestCheck --self-test
 *
 * --topic: the topic both connectors consume (partition 0 is PATCHed). --token: sluice's
 * http.auth.token, sent as a bearer token with every write (and once as HTTP Basic).
 * --sluice-checks: also what only sluice does (401 without the token; 409 for POST /connectors,
 * PUT config, DELETE); leave it out when the "sluice" side is a second worker connector.
 * Exit status: 0 alike, 1 differences or parse failures, 2 usage or a side unreachable.
 */
public final class RestCheck {
  private RestCheck() {}

  public static void main(String[] args) {
    if (args.length == 1 && args[0].equals("--self-test")) {
      System.exit(SelfTest.run(System.out) == 0 ? 0 : 1);
    }
    Map<String, String> opt = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--sluice-checks")) {
        opt.put(a, "true");
      } else if (a.startsWith("--") && i + 1 < args.length) {
        opt.put(a, args[++i]);
      } else {
        usage("unexpected argument " + a);
      }
    }
    for (String required :
        new String[] {"--worker", "--worker-connector", "--sluice", "--sluice-connector",
            "--topic"}) {
      if (!opt.containsKey(required)) usage("missing " + required);
    }
    Side worker = new Side("worker", opt.get("--worker"), opt.get("--worker-connector"),
        opt.get("--token"));
    Side sluice = new Side("sluice", opt.get("--sluice"), opt.get("--sluice-connector"),
        opt.get("--token"));
    System.out.println("rest-check: worker " + worker.baseUrl + " (" + worker.connector
        + ") vs sluice " + sluice.baseUrl + " (" + sluice.connector + "), topic "
        + opt.get("--topic"));
    try {
      int differences =
          new Session(worker, sluice, opt.get("--topic"), opt.containsKey("--sluice-checks"),
              System.out).run();
      System.exit(differences == 0 ? 0 : 1);
    } catch (IOException e) {
      System.err.println("rest-check: a side could not be reached: " + e);
      System.exit(2);
    }
  }

  private static void usage(String why) {
    System.err.println("rest-check: " + why);
    System.err.println("usage: RestCheck --worker URL --worker-connector NAME --sluice URL "
        + "--sluice-connector NAME --topic TOPIC [--token TOKEN] [--sluice-checks]");
    System.err.println("       RestCheck --self-test");
    System.exit(2);
  }
}

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * One side of the comparison: a REST base URL and the connector it is asked about (the Connect
 * worker's, or sluice's). Every request goes out as Connect tools send it: HTTP/1.1, JSON bodies,
 * and, once a token is set, the credentials a request asks for (none, a bearer token, or HTTP
 * Basic with the token as password). A Connect worker without a security extension ignores them.
 *
 * Lifecycle: made once per side by RestCheck; single-threaded.
 */
final class Side {
  /** How a request authenticates. */
  enum Auth { NONE, BEARER, BASIC }

  /** An answer: the status code, the body as text ("" when none), its Content-Type or "". */
  record Answer(int status, String body, String contentType) {}

  final String label;      // "worker" or "sluice", in every line printed
  final String baseUrl;    // http://host:port, no trailing slash
  final String connector;  // the connector's name on this side
  private final String _token;
  private final HttpClient _http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  Side(String label, String baseUrl, String connector, String token) {
    this.label = label;
    this.baseUrl = baseUrl.replaceAll("/+$", "");
    this.connector = connector;
    _token = token == null ? "" : token;
  }

  /** The token this side sends ("" for none). */
  String token() {
    return _token;
  }

  /** path with every "{n}" replaced by this side's connector name. */
  String resolve(String path) {
    return path.replace("{n}", connector);
  }

  /** One request; throws IOException when the side cannot be reached at all. */
  Answer call(String method, String path, String jsonBody, Auth auth) throws IOException {
    HttpRequest.BodyPublisher body =
        jsonBody == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + resolve(path)))
            .timeout(Duration.ofSeconds(30))
            .header("Accept", "application/json")
            .method(method, body);
    if (jsonBody != null) request.header("Content-Type", "application/json");
    if (auth == Auth.BEARER && !_token.isEmpty()) {
      request.header("Authorization", "Bearer " + _token);
    } else if (auth == Auth.BASIC && !_token.isEmpty()) {
      // What kcctl and Kafka UIs send when given a user and password: the user is not checked.
      String pair = "admin:" + _token;
      request.header(
          "Authorization",
          "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }
    try {
      HttpResponse<String> response =
          _http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Answer(
          response.statusCode(),
          response.body() == null ? "" : response.body(),
          response.headers().firstValue("Content-Type").orElse(""));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}

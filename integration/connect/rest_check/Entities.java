import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.runtime.rest.entities.ActiveTopicsInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.runtime.rest.entities.ErrorMessage;
import org.apache.kafka.connect.runtime.rest.entities.Message;
import org.apache.kafka.connect.runtime.rest.entities.PluginInfo;
import org.apache.kafka.connect.runtime.rest.entities.ServerInfo;
import org.apache.kafka.connect.runtime.rest.entities.TaskInfo;

/**
 * What each answer must be, parsed by Kafka Connect's own REST entity classes
 * (org.apache.kafka.connect.runtime.rest.entities, connect-runtime 4.1.1) with a Jackson mapper
 * stricter than Connect's: an unknown property, a duplicate key, trailing tokens, a null for a
 * primitive, or a number or boolean where Connect has a string all fail. A missing property does
 * not (Connect's creators take nulls): the key-tree comparison (ShapeDiff) catches those.
 *
 * Stateless; the mapper is thread-safe once built.
 */
final class Entities {
  private Entities() {}

  static final ObjectMapper STRICT = strictMapper();

  private static ObjectMapper strictMapper() {
    JsonMapper mapper =
        JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    // Connect's config maps and names are strings: "5" is one, 5 is not.
    for (CoercionInputShape shape :
        new CoercionInputShape[] {
          CoercionInputShape.Integer, CoercionInputShape.Float, CoercionInputShape.Boolean
        }) {
      mapper.coercionConfigFor(LogicalType.Textual).setCoercion(shape, CoercionAction.Fail);
    }
    return mapper;
  }

  /** The entity an answer's body is, and the Connect class that reads it. */
  enum Kind {
    NONE("no body"),
    SERVER_INFO("ServerInfo"),
    NAMES("List<String>"),
    EXPANDED("Map<String, {status: ConnectorStateInfo, info: ConnectorInfo}>"),
    CONNECTOR_INFO("ConnectorInfo"),
    CONFIG("Map<String, String>"),
    STATE("ConnectorStateInfo"),
    TASKS("List<TaskInfo>"),
    TOPICS("Map<String, ActiveTopicsInfo>"),  // see parseTopics
    TASK_STATE("ConnectorStateInfo.TaskState"),
    PLUGINS("List<PluginInfo>"),
    OFFSETS("ConnectorOffsets"),
    MESSAGE("Message"),
    ERROR("ErrorMessage");

    final String className;

    Kind(String className) {
      this.className = className;
    }
  }

  /** Parses body as kind; returns null when it parses, else why not (one line). */
  static String check(Kind kind, String body) {
    try {
      parse(kind, body);
      return null;
    } catch (Exception e) {
      String why = e.getMessage() == null ? e.toString() : e.getMessage();
      // Jackson appends the source and a location on their own lines: the first says it.
      return kind.className + ": " + why.lines().findFirst().orElse(why);
    }
  }

  static Object parse(Kind kind, String body) throws Exception {
    ObjectMapper m = STRICT;
    switch (kind) {
      case NONE:
        if (!body.isEmpty()) throw new IllegalStateException("a body where none is expected");
        return null;
      case SERVER_INFO:
        return m.readValue(body, ServerInfo.class);
      case NAMES:
        return m.readValue(body, new TypeReference<List<String>>() {});
      case EXPANDED:
        return parseExpanded(m.readTree(body));
      case CONNECTOR_INFO:
        return m.readValue(body, ConnectorInfo.class);
      case CONFIG:
        return m.readValue(body, new TypeReference<Map<String, String>>() {});
      case STATE:
        return m.readValue(body, ConnectorStateInfo.class);
      case TASKS:
        return m.readValue(body, new TypeReference<List<TaskInfo>>() {});
      case TOPICS:
        return parseTopics(m, body);
      case TASK_STATE:
        return m.readValue(body, ConnectorStateInfo.TaskState.class);
      case PLUGINS:
        // PluginInfo's "type" is PluginType.toString() ("sink"), which Jackson reads back only
        // by toString: exact, not case-insensitive.
        return m.readerFor(new TypeReference<List<PluginInfo>>() {})
            .with(DeserializationFeature.READ_ENUMS_USING_TO_STRING)
            .readValue(body);
      case OFFSETS:
        return m.readValue(body, ConnectorOffsets.class);
      case MESSAGE:
        return m.readValue(body, Message.class);
      case ERROR:
        return m.readValue(body, ErrorMessage.class);
    }
    throw new IllegalArgumentException(kind.name());
  }

  // ActiveTopicsInfo cannot read its own JSON: its @JsonCreator names only the second argument
  // (Jackson: "Argument #0 of Creator ... has no property name"). Its serialized form is read
  // instead, {"<connector>": {"topics": [...]}} with no other key, and each entry built into one.
  private static Object parseTopics(ObjectMapper m, String body) throws Exception {
    Map<String, Map<String, List<String>>> byName =
        m.readValue(body, new TypeReference<Map<String, Map<String, List<String>>>>() {});
    List<ActiveTopicsInfo> out = new ArrayList<>();
    for (Map.Entry<String, Map<String, List<String>>> e : byName.entrySet()) {
      if (!e.getValue().keySet().equals(Set.of("topics"))) {
        throw new IllegalStateException(e.getKey() + " has keys " + e.getValue().keySet()
            + ", ActiveTopicsInfo has only \"topics\"");
      }
      out.add(new ActiveTopicsInfo(e.getKey(), e.getValue().get("topics")));
    }
    return out;
  }

  // GET /connectors?expand=status&expand=info has no entity class of its own: Connect's
  // resource builds the map by hand from ConnectorStateInfo and ConnectorInfo, which read each
  // part here.
  private static Object parseExpanded(JsonNode root) throws Exception {
    if (!root.isObject()) throw new IllegalStateException("not an object: " + root.getNodeType());
    for (Map.Entry<String, JsonNode> connector : root.properties()) {
      if (!connector.getValue().isObject()) {
        throw new IllegalStateException(connector.getKey() + " is not an object");
      }
      for (Map.Entry<String, JsonNode> part : connector.getValue().properties()) {
        String where = connector.getKey() + "." + part.getKey();
        switch (part.getKey()) {
          case "status" -> STRICT.treeToValue(part.getValue(), ConnectorStateInfo.class);
          case "info" -> STRICT.treeToValue(part.getValue(), ConnectorInfo.class);
          default -> throw new IllegalStateException("unknown key " + where);
        }
      }
    }
    return root;
  }
}

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compares the key trees of two JSON answers to the same call, the worker's being the reference:
 * objects key by key, recursively (a key the worker has and sluice lacks is "missing", the other
 * way round "extra"); arrays by their first elements' shapes; leaves by JSON type, a null matching
 * any scalar (Connect writes "version": null while a connector restarts). Two kinds of position
 * are read differently, named by path ("$" the root, ".key" a member, "[]" any array element,
 * ".{n}" the member named after the side's own connector):
 *   - a map of string to string (a connector's config): its keys differ by nature, so each side
 *     only has to be an object of strings, non-empty when the worker's is;
 *   - an object keyed by connector name (GET /connectors?expand=..., /topics): each side must
 *     hold its own connector's name, whose values are compared; other names are not (a worker
 *     may run other connectors; that sluice names only its own is Session's check).
 *
 * Stateless apart from the rules given; one instance per call.
 */
final class ShapeDiff {
  private final Set<String> _stringMaps;
  private final Set<String> _byConnectorName;
  private final String _workerName;
  private final String _sluiceName;
  private final List<String> _differences = new ArrayList<>();

  ShapeDiff(Set<String> stringMaps, Set<String> byConnectorName, String workerName,
      String sluiceName) {
    _stringMaps = stringMaps;
    _byConnectorName = byConnectorName;
    _workerName = workerName;
    _sluiceName = sluiceName;
  }

  /** The differences of sluice's tree from the worker's, one line each; empty when alike. */
  List<String> compare(JsonNode worker, JsonNode sluice) {
    walk("$", worker, sluice);
    return _differences;
  }

  private void walk(String path, JsonNode w, JsonNode s) {
    if (_stringMaps.contains(path)) {
      stringMap(path, w, s);
      return;
    }
    String wType = typeOf(w);
    String sType = typeOf(s);
    boolean nullScalar =
        (w.isNull() && (s.isValueNode() || s.isNull())) || (s.isNull() && w.isValueNode());
    if (!wType.equals(sType) && !nullScalar) {
      differ(path, "is " + sType + " on sluice, " + wType + " on the worker");
      return;
    }
    if (w.isObject() && _byConnectorName.contains(path)) {
      byName(path, w, s);
    } else if (w.isObject()) {
      Set<String> keys = new TreeSet<>();
      w.fieldNames().forEachRemaining(keys::add);
      s.fieldNames().forEachRemaining(keys::add);
      for (String key : keys) {
        String at = path + "." + key;
        if (!s.has(key)) {
          differ(at, "missing on sluice (the worker has " + typeOf(w.get(key)) + ")");
        } else if (!w.has(key)) {
          differ(at, "extra on sluice (" + typeOf(s.get(key)) + "), the worker has no such key");
        } else {
          walk(at, w.get(key), s.get(key));
        }
      }
    } else if (w.isArray()) {
      if (w.size() > 0 && s.size() > 0) {
        walk(path + "[]", w.get(0), s.get(0));
      } else if (w.size() != s.size()) {
        differ(path, "has " + s.size() + " elements on sluice, " + w.size()
            + " on the worker: their shapes cannot be compared");
      }
    }
  }

  private void stringMap(String path, JsonNode w, JsonNode s) {
    if (!s.isObject() || !w.isObject()) {
      differ(path, "should be a map of string to string: " + typeOf(s) + " on sluice, "
          + typeOf(w) + " on the worker");
      return;
    }
    for (Iterator<String> it = s.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!s.get(key).isTextual()) {
        differ(path + "." + key, "is " + typeOf(s.get(key))
            + " on sluice; a map of string to string holds strings");
      }
    }
    if (w.size() > 0 && s.size() == 0) differ(path, "is an empty map on sluice, not on the worker");
  }

  private void byName(String path, JsonNode w, JsonNode s) {
    String at = path + ".{n}";
    if (!w.has(_workerName)) differ(at, "the worker's answer has no key " + _workerName);
    if (!s.has(_sluiceName)) {
      differ(at, "sluice's answer has no key " + _sluiceName + " (its keys: "
          + String.join(", ", keysOf(s)) + ")");
    }
    if (w.has(_workerName) && s.has(_sluiceName)) walk(at, w.get(_workerName), s.get(_sluiceName));
  }

  private static List<String> keysOf(JsonNode node) {
    List<String> keys = new ArrayList<>();
    node.fieldNames().forEachRemaining(keys::add);
    return keys;
  }

  private void differ(String path, String what) {
    _differences.add(path + " " + what);
  }

  static String typeOf(JsonNode node) {
    if (node == null || node.isMissingNode()) return "nothing";
    return switch (node.getNodeType()) {
      case OBJECT -> "an object";
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NUMBER -> node.isIntegralNumber() ? "an integer" : "a decimal number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> node.getNodeType().toString().toLowerCase();
    };
  }
}

#pragma once

#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/column_type.h"
#include "core/model/row_key.h"

namespace sluice {

// A source table's identity as the messages name it. For sources without schemas (MySQL)
// the schema is empty and the database names it.
struct table_name {
  std::string database;
  std::string schema;
  std::string table;

  // "database.schema.table" without empty parts: the name `tables.<source>` config keys use.
  std::string qualified() const;
  // Whether a configured source name (tables.<source>) names this table: the qualified name,
  // or "schema.table", or "database.table", or the bare table name when nothing else is set.
  // Sources differ in which parts they send (Oracle events carry database and schema), so
  // users name tables as they know them.
  bool matches(std::string_view configured) const;
  friend auto operator<=>(const table_name&, const table_name&) = default;
};

struct column_info {
  std::string name;
  std::string source_type;  // as the metadata gave it, empty when unknown
  column_class cls = column_class::unknown;
  bool nullable = true;
  bool key = false;
  column_type type;  // source_type as a portable type (unknown when it says nothing)
};

// What sluice knows of one source table: learned from metadata records, configuration or the
// target database (SPEC §3/§4). Entries have stable addresses for the process lifetime.
// Threading: the learned fields are written and read by the decode stage only; other stages
// read `name`, which never changes.
struct table_entry {
  table_name name;
  std::vector<std::string> key_columns;  // empty: unknown (keyless unless learned)
  std::vector<column_info> columns;      // empty: unknown
  bool key_configured = false;           // key_columns came from configuration
  // `columns`' types as one immutable snapshot, rebuilt when they change (never per message),
  // that the decoder attaches to every change of the table (change::types); null: unknown.
  shared_column_types types;

  std::vector<column_class> key_classes() const;
};

// Interns source tables. intern() is thread-safe and returns the same entry for equal names.
class table_catalog {
 public:
  table_entry* intern(const table_name& name);
  // Key columns configured for a source table (tables.<source>, see table_name::matches);
  // applied to the entry when it is first interned, and to existing ones now. Call before
  // decoding starts: entries' learned fields are not synchronized with decode threads.
  void configure_key(const std::string& qualified, std::vector<std::string> key_columns);
  // Every entry, in name order (for status and persistence).
  std::vector<table_entry*> entries();

  // Where neither configuration nor metadata gave a table's key, a decoder may ask the
  // target database (SPEC §1: the connector asks the sink and feeds the answer in here).
  // The resolver gets the source table and the topic it came on, and returns the key
  // columns (empty: unknown). Set it before decoding starts.
  using key_resolver =
      std::function<std::vector<std::string>(const table_name& source, std::string_view topic)>;
  void set_key_resolver(key_resolver resolver) { _resolver = std::move(resolver); }
  // For an entry without key columns: asks the resolver and, on an answer, the entry learns
  // it. True when the entry has key columns now. Decode stage only (like the learned fields).
  bool resolve_key(table_entry& entry, std::string_view topic);

 private:
  key_resolver _resolver;
  std::mutex _mutex;
  std::deque<table_entry> _storage;  // stable addresses
  std::map<table_name, table_entry*> _index;
  std::map<std::string, std::vector<std::string>> _configured_keys;
};

}  // namespace sluice

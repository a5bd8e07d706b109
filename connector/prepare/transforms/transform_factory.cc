#include "connector/prepare/transforms/transform_factory.h"

#include <stdexcept>

#include "connector/prepare/transforms/by_logical_table_router.h"
#include "connector/prepare/transforms/cast.h"
#include "connector/prepare/transforms/extract_new_record_state.h"
#include "connector/prepare/transforms/filter.h"
#include "connector/prepare/transforms/insert_field.h"
#include "connector/prepare/transforms/mask_field.h"
#include "connector/prepare/transforms/replace_field.h"
#include "connector/prepare/transforms/timestamp_converter.h"
#include "connector/prepare/transforms/value_to_key.h"

namespace sluice {
namespace {

// The loader keeps ExtractNewRecordState's options as text ("": unset; their values checked).
unwrap_options unwrap_options_of(const transform_config& t) {
  unwrap_options o;
  // The loader checked them: "true" or "false", in any case.
  const auto flag = [](const std::string& text) { return text.size() == 4; };
  if (!t.delete_tombstone_handling_mode.empty())
    o.delete_tombstone_handling_mode = t.delete_tombstone_handling_mode;
  if (!t.delete_handling_mode.empty()) o.delete_handling_mode = t.delete_handling_mode;
  if (!t.drop_tombstones.empty()) o.drop_tombstones = flag(t.drop_tombstones);
  o.add_fields = t.add_fields;
  if (!t.add_fields_prefix.empty()) o.add_fields_prefix = t.add_fields_prefix;
  if (!t.replace_null_with_default.empty())
    o.replace_null_with_default = flag(t.replace_null_with_default);
  return o;
}

}  // namespace

std::unique_ptr<change_transform> make_change_transform(transform_kind kind,
                                                        const std::string& name,
                                                        const transform_config& t) {
  switch (kind) {
    case transform_kind::replace_field:
      return std::make_unique<replace_field>(name, t);
    case transform_kind::regex_router:
      break;  // the chain runs routers on topics
    case transform_kind::filter:
      return std::make_unique<filter_transform>();
    case transform_kind::insert_field:
      return std::make_unique<insert_field>(name, t);
    case transform_kind::mask_field:
      return std::make_unique<mask_field>(name, t);
    case transform_kind::value_to_key:
      return std::make_unique<value_to_key>(name, t);
    case transform_kind::timestamp_converter:
      return std::make_unique<timestamp_converter>(name, t);
    case transform_kind::cast:
      return std::make_unique<cast_transform>(name, t);
    case transform_kind::extract_new_record_state:
      return std::make_unique<extract_new_record_state>(name, unwrap_options_of(t));
    case transform_kind::by_logical_table_router:
      return std::make_unique<by_logical_table_router>(name, t);
  }
  throw std::invalid_argument("transforms." + name + ": not a change transform");
}

}  // namespace sluice

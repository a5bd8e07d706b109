#include "connector/prepare/transforms/transform_factory.h"

#include <stdexcept>

#include "connector/prepare/transforms/filter.h"
#include "connector/prepare/transforms/insert_field.h"
#include "connector/prepare/transforms/mask_field.h"
#include "connector/prepare/transforms/replace_field.h"
#include "connector/prepare/transforms/value_to_key.h"

namespace sluice {

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
    case transform_kind::cast:
      throw std::invalid_argument("transforms." + name + ": " + std::string(transform_name(kind)) +
                                  " is not built yet");
  }
  throw std::invalid_argument("transforms." + name + ": not a change transform");
}

}  // namespace sluice

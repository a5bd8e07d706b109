#pragma once

#include <cstdint>

namespace sluice {

// The first key of sluice's two-key advisory locks (pg_advisory_xact_lock(int4, int4)), so
// that they never meet another application's locks. A batch takes chunk locks, then table
// locks, then key locks, each in ascending order, so lock waits never form a cycle.
namespace advisory_lock_space {
inline constexpr int32_t migrate = 0x736c7501;  // state schema migration, per schema name
inline constexpr int32_t ddl = 0x736c7502;      // auto-create / auto-evolve, per target table
inline constexpr int32_t table = 0x736c7503;    // shared by writers, exclusive by truncates
inline constexpr int32_t chunk = 0x736c7505;    // per chunked-record chunk id (chunk_store)
// 0x736c7504 was per key-hash bucket, up to state schema version 2.
inline constexpr int32_t key = 0x736c7506;  // per key: hash(table, key) (key_locks.h)
}  // namespace advisory_lock_space

}  // namespace sluice

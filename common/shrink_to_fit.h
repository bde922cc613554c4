/// @file shrink_to_fit.h
/// @brief A driver's default problem shrunk to the GPU it runs on, with one line saying so. Only
/// defaults shrink: a size given by a flag is refused by require_device_memory instead.
#pragma once

#include "common/device_info.h"

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

namespace cudalabs {

/// The default `size` of `flag` halved until `bytes(size)` fits in `memory` (halve_until_fits),
/// never below `smallest`; `besides` names what else the bytes count ("with the rest"), or is
/// empty. When it shrinks, one line on `out`, such as: size: the default --n 268435456 needs 3136
/// MiB, more than this GPU can spare (2000 MiB free of 4096 MiB); running --n 67108864 (--n
/// chooses). Returns the size to run.
long long shrink_default_to_fit(std::ostream& out, const std::string& flag, long long size,
                                long long smallest, const DeviceMemory& memory,
                                const std::function<std::size_t(long long)>& bytes,
                                const std::string& besides = "");

}  // namespace cudalabs

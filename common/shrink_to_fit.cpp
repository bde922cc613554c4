#include "common/shrink_to_fit.h"

namespace cudalabs {

long long shrink_default_to_fit(std::ostream& out, const std::string& flag, long long size,
                                long long smallest, const DeviceMemory& memory,
                                const std::function<std::size_t(long long)>& bytes,
                                const std::string& besides) {
  const long long fitting = halve_until_fits(size, smallest, memory.free_bytes, bytes);
  if (fitting == size) return size;
  out << "size: the default " << flag << " " << size << " needs " << (bytes(size) >> 20) << " MiB"
      << (besides.empty() ? "" : " " + besides) << ", more than this GPU can spare ("
      << (memory.free_bytes >> 20) << " MiB free of " << (memory.total_bytes >> 20)
      << " MiB); running " << flag << " " << fitting << " (" << flag << " chooses)\n";
  return fitting;
}

}  // namespace cudalabs

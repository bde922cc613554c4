// The launches the labs make, as their variants describe them, for the resource gate
// (tests/resource_gate/resource_gate.py): every declared lab's catalog (labs/NN_name/lab.json names
// its `launches` file; common/launch_catalog.h), each launch's kernel host address, threads per
// block and dynamic shared memory. Runs on the CPU: a description that needs a GPU (one that asks
// for the SM count) is reported as such, once per variant. The first line gives the address of a
// function of this program, so that the gate can map run-time addresses to the symbols `nm` lists;
// a line `catalog labNN COUNT` opens each lab's launches.
#include "common/launch_catalog.h"

#include <cstdio>
#include <exception>
#include <set>
#include <string>

extern "C" int cudalabs_resource_gate_anchor() {
  return 0;
}

int main() {
  std::printf("anchor %p\n", reinterpret_cast<void*>(&cudalabs_resource_gate_anchor));
  for (const cudalabs::DeclaredLab& lab : cudalabs::declared_labs()) {
    if (lab.describe_launches == nullptr) continue;  // no kernels of its own
    cudalabs::LaunchCatalog catalog;
    lab.describe_launches(catalog);
    const std::string name = std::string("lab") + lab.number;
    std::printf("catalog %s %zu\n", name.c_str(), catalog.launches().size());
    std::set<std::string> undescribed;
    for (const cudalabs::CatalogedLaunch& entry : catalog.launches()) {
      if (undescribed.contains(entry.variant)) continue;
      try {
        const cudalabs::KernelLaunch launch = entry.describe();
        std::printf("launch %s %s %p %d %zu\n", name.c_str(), entry.variant.c_str(), launch.kernel,
                    launch.threads_per_block(), launch.dynamic_shared_bytes);
      } catch (const std::exception& error) {
        std::printf("undescribed %s %s %s\n", name.c_str(), entry.variant.c_str(), error.what());
        undescribed.insert(entry.variant);
      }
    }
  }
  return 0;
}

// Lab 09's launches for the checks of every lab (common/launch_catalog.h): each transposed
// convolution's kernel at the generator's four layers for one image and a batch of 64, and at odd
// sizes (each sub-pixel kernel: the layer's width chooses it).
#include "common/launch_catalog.h"
#include "labs/09_dcgan/lab.h"

#include <sstream>
#include <string>
#include <vector>

namespace lab09 {

void describe_launches(cudalabs::LaunchCatalog& catalog) {
  using cudalabs::dcgan::TconvShape;
  std::vector<TconvShape> layers;
  for (const int batch : {1, 64})
    for (int layer = 1; layer <= 4; ++layer)
      layers.push_back(cudalabs::dcgan::generator_layer(layer, batch));
  const auto label = [](const TconvShape& s) {
    std::ostringstream text;  // b<batch>/<H>x<W>x<C>-><K>
    text << "b" << s.batch << "/" << s.height << "x" << s.width << "x" << s.in_channels << "->"
         << s.out_channels;
    return text.str();
  };
  const auto add = [&](const char* name, cudalabs::KernelLaunch (*describe)(const TconvShape&),
                       const std::vector<TconvShape>& shapes) {
    for (const TconvShape& shape : shapes)
      catalog.add(name, label(shape), [describe, shape] { return describe(shape); });
  };
  std::vector<TconvShape> any_sizes = layers;
  any_sizes.push_back({3, 5, 7, 9, 6});
  add("tconv_naive", &describe_tconv_naive, any_sizes);
  add("tconv_branch_free", &describe_tconv_branch_free, any_sizes);
  add("lower_tconv_input", &describe_lower_tconv_input, any_sizes);
  // The sub-pixel form takes C a multiple of 8 and K a multiple of 4 or at most 4: odd sizes that
  // reach its narrow and its small-K kernel.
  std::vector<TconvShape> subpixel_sizes = layers;
  subpixel_sizes.push_back({3, 5, 7, 16, 12});
  subpixel_sizes.push_back({3, 5, 7, 16, 3});
  add("tconv_subpixel", &describe_tconv_subpixel, subpixel_sizes);
}

}  // namespace lab09

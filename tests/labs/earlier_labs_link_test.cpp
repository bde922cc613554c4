// Which kernels a later lab's student build links: the reference solutions of the earlier labs by
// default, the student's own with CUDALABS_EARLIER_LABS=student. Runs without a GPU: it asks the
// linked libraries which build they are (cmake/CudaLabs.cmake generates the answer).
#include "labs/07_wide_loads/lab.h"
#include "labs/09_dcgan/lab.h"
#include "labs/10_multi_gpu_dcgan/lab.h"

#include <gtest/gtest.h>

#include <string>

namespace {

const std::string kMode = CUDALABS_EARLIER_LABS_MODE;  // "reference" or "student"
const std::string kEarlierBuild = kMode == "student" ? "student" : "solution";

TEST(EarlierLabs, Lab10StudentBuildLinksTheConfiguredEarlierKernels) {
  EXPECT_EQ(std::string(cudalabs_lab10_kernels_build()), "student");
  EXPECT_EQ(std::string(cudalabs_lab09_kernels_build()), kEarlierBuild) << "mode " << kMode;
  EXPECT_EQ(std::string(cudalabs_lab07_kernels_build()), kEarlierBuild) << "mode " << kMode;
}

}  // namespace

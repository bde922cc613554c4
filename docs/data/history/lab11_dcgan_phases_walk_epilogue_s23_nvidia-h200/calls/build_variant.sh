#!/bin/bash
# build_variant.sh NAME "DEFINES": lab 11 solution kernels.cu with DEFINES, relinked into dcgan and the lab 11 DCGAN test
set -e
name=$1; defs=$2; d=VARIANTS/$name; mkdir -p $d
cd BUILD
obj=labs/CMakeFiles/lab11_solution_kernels.dir/__/solutions/11_tensor_cores/kernels.cu.o
compile=$(ninja -t commands labs/liblab11_solution_kernels.a | grep "11_tensor_cores/kernels.cu" | head -1)
compile=${compile/-DCUDALABS_BUILD_SOLUTION=1/-DCUDALABS_BUILD_SOLUTION=1 $defs}
compile=${compile/-o $obj/-o $d/kernels.cu.o}
compile=${compile/-MD -MT*.o.d /}
eval "$compile"
cp labs/liblab11_solution_kernels.a $d/lib.a
mkdir -p $d/x && (cd $d/x && cp ../kernels.cu.o . && ar r ../lib.a kernels.cu.o)
for t in labs/dcgan tests/lab11_dcgan_solution; do
  link=$(ninja -t commands $t | tail -1)
  link=${link//labs\/liblab11_solution_kernels.a/$d/lib.a}
  link=${link/-o $t /-o $d/$(basename $t) }
  eval "$link"
done
ls -la $d

// Call 6's experiment: bench_few_columns11.cu at slices of 512 to 2048 values, built with
// kFewColumnsMaxSliceK 2048 (tiles.h; a copy of labs/11_tensor_cores with that one line changed,
// its folder first on the include path: -I<copy>/labs/11_tensor_cores -Ilabs/11_tensor_cores ...),
// and otherwise as bench_few_columns11.cu says. (Call 6 ran a copy of that file with these slices
// written in; this is the same translation unit.)
#define BENCH_FEW_COLUMNS_SLICES 512, 1024, 1536, 2048
#include "bench_few_columns11.cu"

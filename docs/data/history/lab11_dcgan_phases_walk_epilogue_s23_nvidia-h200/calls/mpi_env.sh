# Source with M set to this folder: Open MPI 4.1 (Debian 12's) run from here, not from /usr.
export OPAL_PREFIX=$M/usr
export PATH=$M/usr/bin:$PATH
export LD_LIBRARY_PATH=$M/usr/lib/x86_64-linux-gnu:$M/usr/lib/x86_64-linux-gnu/pmix2/lib:${LD_LIBRARY_PATH:-}
export PMIX_MCA_mca_base_component_path=$M/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
export PMIX_PREFIX=$M/usr/lib/x86_64-linux-gnu/pmix2
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_osc=^ucx OMPI_MCA_mtl=^ofi,psm,psm2
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ln -sf mpirun.openmpi $M/usr/bin/mpirun 2>/dev/null || true
# The GPU machine has another PMIx's plugins at Debian's path, which this PMIx also searches: they
# fail to load (and say so on stderr); zlib compression is optional.
export PMIX_MCA_mca_base_component_show_load_errors=0 PMIX_MCA_pcompress_base_silence_warning=1
export OMPI_MCA_mca_base_component_show_load_errors=0

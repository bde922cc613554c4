# cuda-labs: the front door.
#
#   make run               build the solutions (a student release: your kernels) and run every lab in order, then
#                          the progression table (GPU)
#   make test              build everything and run the tests (GPU tests are skipped, with the reason, without one)
#   make lab N=01          build and run the student's lab 01 (ARGS="--size 2048" passes flags)
#   make solution N=01     the same with the reference solution
#   make profile N=05      Nsight Compute on your lab 05 and the solution's (where there is one), key metrics side
#                          by side
#   make bench             time every solution and write Google Benchmark JSON to $(BUILD_DIR)/bench
#   make gpu-check         on a GPU machine: build, all GPU tests, short benchmarks, compute-sanitizer
#   make docs              the docs site (Doxygen) from the handouts and docs/data/: $(BUILD_DIR)/docs/html
#   make handouts          render labs/*/README.md from docs/handouts/ and docs/data/ (after editing either)
#   make grade             grade a submission on the GPU: SUBMISSION=path/to/labs LABS=01,02 (default: labs/,
#                          all labs); reports in $(BUILD_DIR)/grade/<submission>/ (or GRADE_DIR=...);
#                          UNSANDBOXED=1 or NO_TECHNIQUE=1 where the node cannot sandbox or profile
#                          (every report says so)
#   make grade-class       grade a whole class on every GPU: CLASS=dir (a folder per student) or ROSTER=file.csv
#                          (student,folder), LABS=..., REGRADE=1, GPUS=0,1, RUBRIC=file; gradebook and class
#                          report in build/grade-class/<class>/ (or GRADE_DIR=...)
#   make release-students  DEST=dir: a copy for a class, without solutions, grader or answer keys
#   make setup             install what the build needs (scripts/setup; every target above calls it first)
#
# Variables: BUILD_DIR (build), JOBS (all cores), CMAKE_FLAGS (extra cmake -D...), ARGS (driver flags),
# EARLIER_LABS (reference, where there are solutions: a later lab's student build runs the earlier labs'
# reference kernels, so each lab stands alone; student, the only one of a student release: it runs your
# own, e.g. make lab N=10 EARLIER_LABS=student).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
ARGS ?=
N ?=
SUBMISSION ?= labs
LABS ?=
GRADE_DIR ?=
CLASS ?=
ROSTER ?=
REGRADE ?=
UNSANDBOXED ?=
NO_TECHNIQUE ?=
GRADE_FLAGS = $(if $(UNSANDBOXED),--unsandboxed) $(if $(NO_TECHNIQUE),--no-technique)
EARLIER_LABS ?= $(if $(HAVE_SOLUTIONS),reference,student)
# The build's packages; lab 10's MPI program is built when Open MPI is there, and the grader's
# sandbox runs where bubblewrap is, so both are optional; so is ccache (cache), which only saves time.
# What only runs labs (make run,
# lab, solution, profile, bench) needs the build group alone: RUN_SETUP_GROUPS.
SETUP_GROUPS ?= build --optional mpi grading cache
RUN_SETUP_GROUPS ?= build
# CUDA's installer puts nvcc under /usr/local/cuda/bin without adding it to PATH.
export PATH := $(if $(shell command -v nvcc 2>/dev/null),$(PATH),/usr/local/cuda/bin:$(PATH))
# Tools extracted by `scripts/setup --bundle` (an offline machine's .deps) are found like installed ones.
DEPS_BIN := $(or $(CUDALABS_DEPS),$(CURDIR)/.deps)/root/usr/bin
export PATH := $(if $(wildcard $(DEPS_BIN)),$(DEPS_BIN):)$(PATH)
GENERATOR = $(if $(shell command -v ninja 2>/dev/null),Ninja,Unix Makefiles)
# The suite's lab folders (00_roofline ...), each declared by its lab.json: a name of their own, so that
# the user's LABS (make grade's choice, empty for every lab) reaches the grader as given.
LAB_FOLDERS := $(sort $(patsubst labs/%/,%,$(dir $(wildcard labs/[0-9][0-9]_*/lab.json))))
LAB_NUMBERS := $(foreach lab,$(LAB_FOLDERS),$(firstword $(subst _, ,$(lab))))
# A student release (make release-students) has no solutions/ and no grader: the targets that need them
# (and make profile SOLUTION=1) stop as the Makefile is read, before any prerequisite (setup, the GPU
# check) runs, each with one line and exit code 2.
HAVE_SOLUTIONS := $(wildcard solutions/00_*)
INSTRUCTOR_ONLY := solution bench gpu-check grade grade-class release-students
NOT_IN_RELEASE = make $(1): this copy is a student release, without the reference solutions and the grader that it needs
ifeq ($(HAVE_SOLUTIONS),)
$(foreach goal,$(filter $(INSTRUCTOR_ONLY),$(MAKECMDGOALS)),$(error $(call NOT_IN_RELEASE,$(goal))))
$(if $(and $(SOLUTION),$(filter profile,$(MAKECMDGOALS))),$(error $(call NOT_IN_RELEASE,profile SOLUTION=1)))
endif
NO_GPU_MESSAGE = no CUDA GPU available: make $(MAKECMDGOALS) needs one (make test builds everything and runs the CPU tests)


.PHONY: all setup configure build test run lab solution profile bench gpu-check release-students docs clean help check-lab-number require-gpu grade \
        grade-class handouts
all: build

# The header above, to its last comment line; in a student release without the entries (and their
# continuation lines) of the targets it does not have.
help:
	@awk -v drop=" $(if $(HAVE_SOLUTIONS),,$(INSTRUCTOR_ONLY)) " 'NR == 1 {next} !/^#/ {exit} \
	  /^#   make / {skip = index(drop, " " $$3 " ")} !/^#      / && !/^#   make / {skip = 0} !skip' Makefile

# Quiet and fast when nothing is missing; installs what is (apt-get), or names the command to run.
# The targets that only build and run labs install the build group alone (RUN_SETUP_GROUPS): a fresh
# GPU node's `make run` waits for no MPI or grading package.
RUNS_ONLY := $(filter run lab solution profile bench,$(MAKECMDGOALS))
setup:
	@scripts/setup $(if $(and $(RUNS_ONLY),$(if $(filter-out $(RUNS_ONLY),$(MAKECMDGOALS)),,x)),$(RUN_SETUP_GROUPS),$(SETUP_GROUPS))

$(BUILD_DIR)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD_DIR) -G "$(GENERATOR)" -DCUDALABS_EARLIER_LABS=$(EARLIER_LABS) $(CMAKE_FLAGS)

# An existing build follows EARLIER_LABS too: CMake is told again only when the value changed, or when
# Open MPI arrived after a build configured without it (make run first, make test later).
configure: setup $(BUILD_DIR)/CMakeCache.txt
	$(if $(filter reference student,$(EARLIER_LABS)),,$(error EARLIER_LABS=$(EARLIER_LABS) is not reference or student))
	@grep -qx 'CUDALABS_EARLIER_LABS:STRING=$(EARLIER_LABS)' $(BUILD_DIR)/CMakeCache.txt || \
	  cmake $(BUILD_DIR) -DCUDALABS_EARLIER_LABS=$(EARLIER_LABS)
	@if command -v mpirun >/dev/null 2>&1 && grep -qx 'CUDALABS_MPI_FOUND:INTERNAL=OFF' $(BUILD_DIR)/CMakeCache.txt; then \
	  cmake $(BUILD_DIR) >/dev/null; fi

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# ctest, then one line per reason tests were skipped (scripts/run-tests).
test: build
	scripts/run-tests "$(BUILD_DIR)" -j $(JOBS)

# require-gpu comes first among the prerequisites and stops make itself, so that without a GPU the
# whole output is one line (make's "*** no CUDA GPU available ... Stop.") and the exit code non-zero.
require-gpu:
	$(if $(shell scripts/gpu-present && echo yes),,$(error $(NO_GPU_MESSAGE)))

check-lab-number:
	$(if $(filter $(N),$(LAB_NUMBERS)),,$(error N=$(N) is not a lab: use one of $(LAB_NUMBERS), e.g. make lab N=01))

# Builds exactly the drivers scripts/run-labs runs (and what they link), nothing else: no tests, no
# student builds, no lab07_plans or MPI program; each lab runs as soon as its driver is built.
run: require-gpu configure
	JOBS=$(JOBS) scripts/run-labs --build $(BUILD_DIR) $(BUILD_DIR)/run

lab: check-lab-number require-gpu configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target lab$(N)
	$(BUILD_DIR)/labs/lab$(N) $(ARGS)

solution: check-lab-number require-gpu configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target lab$(N)_solution
	$(BUILD_DIR)/labs/lab$(N)_solution $(ARGS)

# Nsight Compute on your lab (and the solution's, for comparison): the CSVs in $(BUILD_DIR)/profile/,
# the handouts' key metrics side by side on the terminal. SOLUTION=1 profiles only the solution.
profile: check-lab-number require-gpu configure
	@command -v ncu >/dev/null || { echo "make profile: Nsight Compute (ncu) not found; it comes with the CUDA toolkit" >&2; exit 2; }
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $(if $(HAVE_SOLUTIONS),lab$(N)_solution) $(if $(SOLUTION),,lab$(N))
	$(if $(HAVE_SOLUTIONS),scripts/profile --solution $(BUILD_DIR) $(N) $(BUILD_DIR)/profile/lab$(N)_solution.csv $(ARGS))
	$(if $(SOLUTION),,scripts/profile $(BUILD_DIR) $(N) $(BUILD_DIR)/profile/lab$(N)_yours.csv $(ARGS))
	@scripts/profile_compare.py $(if $(SOLUTION),,$(BUILD_DIR)/profile/lab$(N)_yours.csv) \
	  $(if $(HAVE_SOLUTIONS),$(BUILD_DIR)/profile/lab$(N)_solution.csv)

bench: require-gpu configure
	JOBS=$(JOBS) LAB_ARGS="--repetitions 10 $(ARGS)" scripts/run-labs --build $(BUILD_DIR) $(BUILD_DIR)/bench

grade: require-gpu setup
	scripts/grade --submission "$(SUBMISSION)" --labs "$(LABS)" --build "$(BUILD_DIR)/grade-build" \
	  --out "$(or $(GRADE_DIR),$(BUILD_DIR)/grade/$(notdir $(abspath $(SUBMISSION))))" $(if $(RUBRIC),--rubric "$(RUBRIC)") \
	  $(GRADE_FLAGS)

grade-class: require-gpu setup
	@scripts/setup --optional grading
	scripts/grade-class $(if $(CLASS),--class "$(CLASS)") $(if $(ROSTER),--roster "$(ROSTER)") --labs "$(LABS)" \
	  $(if $(REGRADE),--regrade) $(if $(GRADE_DIR),--out "$(GRADE_DIR)") $(if $(RUBRIC),--rubric "$(RUBRIC)") \
	  $(if $(GPUS),--gpus "$(GPUS)") $(GRADE_FLAGS)

# A copy of the suite for a class: no solutions, no grader, no answer keys, docs without solution code.
release-students:
	$(if $(DEST),,$(error make release-students needs DEST=folder, e.g. make release-students DEST=../course-2027))
	scripts/release-students "$(DEST)"

gpu-check: require-gpu
	scripts/gpu-check

docs:
	scripts/build-docs $(BUILD_DIR)

# The handouts a student opens (labs/NN_name/README.md) are rendered from docs/handouts/NN_name.md with
# the recorded figures written in; `make test` fails while one is not current.
handouts:
	scripts/render-handouts

clean:
	rm -rf $(BUILD_DIR)

"""The placeholders of the handouts, walkthroughs, answer keys and pages, filled in from docs/data/.

Used by the docs site (generate.py) and by the handouts rendered in place (handouts.py, make handouts);
it needs no plotting library, so the CPU test that keeps the handouts current runs anywhere.
Templates may use:
  {{results}} {{sweep}}                  the lab's timing tables (docs/data/results); {{sweep:compact}}: one table;
                                         {{results:RECORD}}: the tables of docs/data/RECORD_<device>.json
  {{section:sol|occupancy|memory|stalls|banks|issue}}   an Nsight Compute section as a table
  {{plot:NAME.svg}}                      an image drawn by plots.py
  {{gflops:VARIANT}} {{ms:VARIANT}} {{pct:VARIANT}}    one timing (default problem), also VARIANT@PROBLEM
  {{metric:VARIANT:NCU_METRIC:FORMAT}}   one profile value (FORMAT: pct, ratio, count, gb, ms, float1)
  {{ceiling:fma|bandwidth|ridge}}        lab 00's measured ceilings
  {{coarsening:case1|case2}}             lab 08: every factor, H100 next to [COARSEN-KGP]'s table
  {{coarsening_speedup:case1|case2}}     lab 08: the best factor's speedup over factor 1
  {{bad_input_tests}}                    the command-line bad-input tests (tests/cli/CliTests.cmake)
  {{rubric_points}}                      the points per lab of the grader's rubric
  {{rubric_total}} {{rubric_total:NN}}   the rubric's total now, of every lab or of lab NN
  {{edition}}                            which edition this site is: instructor's or student
  {{edition_commands}}                   the two commands, as they work in this edition
  {{solution_run:COMMAND}}               a line of a code block that runs the reference solution: COMMAND in the
                                         instructors' edition, in the student release a comment that says what
                                         to compare with instead (what else one edition shows: editions.py)
  {{technique_rules}}                    what each variant's profile must show, and what sets variants apart
  {{course_map}}                         the labs in a semester's order (every lab.json's progression row, the
                                         main README's table), each lab's name a link to its page
  {{read_more_lists}}                    every lab's read-more list under its title (the handouts' last sections)
  {{semester_plan}}                      the fourteen weeks of the core (docs/data/course/semester.json), hours too
  {{lab_effort}}                         hours and difficulty, lines to write, the student versions, grading time
  {{effort:hours}}                       the time the lab takes, as its handout quotes it ("about 4-6 hours")
  {{dcgan:throughput|end_to_end|layers@BATCH}}   lab 09's tables (dcgan_tables.py)
  {{dcgan:tensor_cores|tensor_core_layers@BATCH|pytorch_configs}}   lab 11's step 7 against lab 09 and PyTorch
  {{multigpu:threads|mpi|mpi-collective@DEVICE}} lab 10's scaling tables
  {{calc:EXPR:FORMAT}}                   arithmetic on recorded values: ms(V), gflops(V), pct(V) (of cuBLAS),
                                         counter(V,NAME) (a results field), metric(V,NCU_METRIC); V is
                                         VARIANT[@PROBLEM][#LAB][!DEVICE][&RECORD], e.g.
                                         {{calc:ms(naive_strided)/ms(naive_coalesced):x1}}; a timeline's
                                         trace_kernels(FILE,WORKER) and trace_end(FILE), in ms; a DCGAN layer's
                                         layer(V,INDEX) ms, layer_gflops(V,INDEX), and its floors in ms
                                         compute_floor(V,INDEX), memory_floor(V,INDEX), floor(V,INDEX) (the
                                         larger), V = VARIANT@bBATCH[&results/lab11_dcgan]
                                         lab 13's steps: step_tflops(V), step_best(V) and step_flash(V) (the
                                         rate over SDPA's best or flash backend in the same run),
                                         step_improved(V) (over the row it improves), V = ROW@PROBLEM!DEVICE
                                         &RECORD (results/lab13_attention_steps[_TAG]; ROW sdpa_BACKEND is SDPA's)
  {{quote:TEXT}} {{const:TEXT}}          a figure quoted from a source, or a constant (a datasheet value,
                                         a count that follows from the code): shown as written, and
                                         marked so that the numbers check (check_numbers.py) accepts it
  {{diff:NN:MM}}                         lab MM's key kernel lines against lab NN's, as a unified diff
  {{sass:NAME:KERNEL:OPCODE}}             how many OPCODE instructions (FFMA, LDS.128) the kernel matching the
                                         regular expression KERNEL holds in the SASS mix profiles/NAME.csv
  {{sass_hot:NAME}}                      the hottest SASS instructions of profiles/NAME_<device>.csv
  {{record:FILE:TEXT}}                   a figure copied from a text record under docs/data/ (checked to be there)
  {{json:FILE:KEY.PATH:FORMAT}}          a value of a JSON record under docs/data/
  {{tuning:COMMIT/BATCH[/N]:COLUMN:FORMAT}}  a cell of lab 09's tuning record (docs/data/dcgan/tuning.md)
  {{fastest:NN}} {{fastest_pct:NN}}      lab NN's fastest variant at 4096^3 and its % of cuBLAS (the
                                         progression plot's rule); {{fastest_name:NN}} {{fastest_gflops:NN}} apart
  {{record_note:RECORD}}                 a results record's device, date, commit and command (RECORD: results/NAME,
                                         or results/NAME@DEVICE for another device's)
  {{run_of:RECORD}}                      the same in a few words: device, date and commit
  {{kernel_of:VARIANT}}                  the variant whose kernel VARIANT ran when profiled (best -> wide_256x128)
  {{coarsening_factor:case1|case2}}      lab 08: the factor with the best speedup
  {{lab:NN}}                             set the lab the placeholders above refer to
  {{pending:RECORD[.EXT][@DEVICE]}}      a measurement not made yet: says so, naming the record that will hold it
                                         (docs/data/RECORD_<device>.json, or .EXT); fails once that record exists
  {{random_shapes:RECORD}}               scripts/gemm-random-shapes: its distribution and goals, then the
                                         summary docs/data/RECORD_<device>.json as a table with its plot, or
                                         a line saying that it is not measured yet
  {{attention_steps:RECORD@DEVICE}}      lab 13's steps past the ladder in one run (RECORD: results/
                                         lab13_attention_steps[_TAG]): TFLOP/s and the rate over SDPA's best
                                         backend of the same run, a column per problem (records/attention_steps.py)
  {{step_profiles:RECORD@DEVICE}}        Nsight Compute on each of those steps (RECORD: profiles/lab13_steps):
                                         the table, or until the record exists a line saying so
                                         (records/step_profiles.py)
A placeholder whose data is missing fails the build, so a page never shows a stale or invented number.
"""
import csv
import difflib
import json
import pathlib
import re

from cudalabs.docs import dcgan_tables, editions, grading_tables, reliability
from cudalabs.records import attention_steps, labdata, random_shapes, step_profiles
from cudalabs.records.benchmark import Record

FORMATS = {
    "pct": lambda v: f"{v:.1f} %",
    "pct0": lambda v: f"{v:.0f} %",
    "x1": lambda v: f"{v:.1f}x",
    "x2": lambda v: f"{v:.2f}x",
    "f0": lambda v: f"{v:,.0f}",
    "f1": lambda v: f"{v:,.1f}",
    "f2": lambda v: f"{v:.2f}",
    "f3": lambda v: f"{v:.3f}",
    "f4": lambda v: f"{v:.4f}",  # a ratio whose third decimal rounds onto a goal
    "gb": lambda v: f"{v / 1e9:.2f} GB",
    "ms": lambda v: f"{v / 1e6:.2f} ms",
    "float1": lambda v: f"{v:.1f}",
    "tflops": lambda v: f"{v / 1e3:,.0f}",  # a record's GFLOP/s counter, shown in TFLOP/s
}
FORMATS.update(ratio=FORMATS["f2"], count=FORMATS["f0"])  # the walkthroughs' older names
FLOOR_TERMS = ("compute_floor", "memory_floor", "floor")  # calc's terms for a DCGAN layer's floors, in ms
STEP_TERMS = ("step_tflops", "step_best", "step_flash", "step_improved")  # calc's terms for lab 13's steps


PLOT_CAPTIONS = {
    "progression.svg": "Best variant of every lab at 4096^3 against cuBLAS and the measured FP32 ceiling",
    "roofline.svg": "The measured roofline, both roofs drawn (DRAM bandwidth, the slope; FP32 FFMA rate, the "
    "flat roof), with each GEMM lab's fastest variant and cuBLAS placed by its DRAM intensity (every variant of a "
    "lab is on the lab's own roofline, on its walkthrough)",
    "lab11_variants.svg": "Every rung of lab 11 at 4096^3 against cuBLAS in BF16 (dashed) and the measured tensor-core "
    "ceiling (dotted): how far each bar is from cuBLAS",
    "lab01_coalescing.svg": "One warp under each mapping (lab.h's 32 x 8 blocks): the elements of C it "
    "computes, and the "
    "32-byte sectors its 32 lanes need for one load of A, one of B and the store of C; the "
    "measured sectors per load request are in each title",
    "lab06_pipeline.svg": "The tile loop over time: lab 05 waits at two barriers a tile, prefetch_regs loads the next "
    "tile into registers during the FFMAs (one barrier), cp_async keeps two tiles in flight "
    "(lab.h's stages); the order is drawn, not measured durations",
    "lab07_waves.svg": "How a GEMM with fewer tiles than SMs lands on the SMs (tiles.h's 256 x 128 tile, the record's "
    "SM count): whole tiles leave most SMs idle, split-K cuts each tile's K into slices and sums "
    "them, stream-K gives every SM the same share of all the K steps",
    "lab10_mpi_flow.svg": "The MPI program's data flow on two nodes of two ranks: MPI_Scatterv hands each rank its "
    "share, each GPU runs lab 09's pipeline, rank 0's node writes into one shared window, "
    "the other node's images travel by MPI_Igatherv while the GPUs go on",
    "lab11_warpgroups.svg": "Step 6's warp-specialized kernel (tiles.h): one producer warpgroup fills a ring of "
    "stages with TMA, the consumer warpgroups each own 64 rows of the tile and hand a stage "
    "back when their wgmma is done",
    "lab09_taps.svg": "Lab 09's sub-pixel view of a stride-2 transposed convolution: the taps of the 5 x 5 filter that "
    "each of the four output phases uses (subpixel.h's rule), each phase a small convolution of its own",
    "gemm_sweep.svg": "Labs 05-07 and cuBLAS across problem sizes",
    "lab13_tile_loop.svg": "FlashAttention's tile loop as step 5 runs it (tiles.h's tile sizes): a block's queries "
    "walk the key tiles, the next tile's copy in flight, the tiles past the causal diagonal skipped; each warp "
    "scores a tile, masks it, updates its running maximum, sum and output, and multiplies the probabilities by V, "
    "never storing a score",
    "lab04_block_size.svg": "Rate and occupancy against the block edge",
    "progression_tensor_cores.svg": "Lab 11's tensor-core ladder at 4096^3 after lab 07's FP32 best, against cuBLAS in "
    "BF16 and TF32 and the measured tensor-core ceiling",
    "lab11_shapes.svg": "Lab 11's best over cuBLAS BF16 on every shape of the sweep (a bar past the axis carries its "
    "value): the bars left of the red line are the shapes still to win (off the tile grid, too few "
    "tiles, operands not 16-byte aligned)",
    "lab11_layouts.svg": "Where the tensor cores' results and operands live: an mma.sync accumulator tile by lane and "
    "register, a wgmma accumulator by warp, and the 128-byte swizzle of a shared tile",
    "lab07_shapes.svg": "Lab 07's best over cuBLAS on every shape of the sweep, before (grey) and after (blue) the "
    "wave model, split-K, the narrow kernel, the aligned copies, the clamped edge blocks and "
    "stream-K (a bar past the axis carries its value): look for the bars left of the red 0.95 "
    "line, the shapes still to win",
    "gemm_random_shapes.svg": "Lab 07's and lab 11's best against cuBLAS on the random shapes: the share of the "
    "shapes (up) whose ratio cuBLAS time / best time is at most the value across; left of the black line best is "
    "slower, and a lab meets its goal for the 10th percentile where its curve crosses the dotted 0.1 line right of "
    "its dashed goal",
    "lab08_coarsening.svg": "Speedup and achieved occupancy against the coarsening factor, H100 and [COARSEN-KGP]",
    "lab10_scaling.svg": "Lab 10 on two H200s: images per second against the job size, one and two GPUs, with threads "
    "and with MPI ranks; two GPUs pay off only once a job is far above the floor of a run",
    "lab09_timeline.svg": "One end-to-end run of lab 09 (5,248 images in batches of 1,312, H100, recorded with "
    "--timeline): "
    "each batch's download and host copy run while the next batch computes; the GPU never waits for them",
    "lab10_timeline.svg": "Lab 10 with two workers on the one GPU of the lent machine (recorded with --timeline): both "
    "host threads keep their pipelines busy and the two workers' kernels share the GPU, so each "
    "batch takes about twice as long",
    "lab10_timeline_two_gpus.svg": "Lab 10 on two H200s, one worker each (recorded with --timeline): the same "
    "job as above, "
    "split in two; each GPU runs its half's kernels alone, and the two rows end together",
    "lab11_samples_fp32.png": "64 images of the trained generator in FP32 (lab 09's sub-pixel kernels, dcgan --num 64 "
    "--seed 2026 --variant subpixel, H100; docs/data/dcgan/samples_fp32.png)",
    "lab11_samples_bf16.png": "The same 64 latent vectors through the BF16 tensor-core generator (dcgan --num "
    "64 --seed "
    "2026 --precision bf16, H100; docs/data/dcgan/samples_bf16.png): the differences are below "
    "what the eye sees",
    "lab11_samples_tf32.png": "And through the TF32 tensor-core generator (--precision tf32, H100; "
    "docs/data/dcgan/samples_tf32.png)",
    "lab09_samples.png": "64 images from the trained Fashion-MNIST weights, generated by dcgan --num 64 --seed 2026 "
    "with the sub-pixel kernels on the H100 (docs/data/dcgan/samples.png): look at the fine "
    "checkered texture on the dark tops, the transposed convolutions' four phases showing",
}


# Pictures that are records themselves (docs/data/...), shown as they are.
RECORDED_PICTURES = {
    "lab09_samples.png": "dcgan/samples.png",
    "lab11_samples_fp32.png": "dcgan/samples_fp32.png",
    "lab11_samples_bf16.png": "dcgan/samples_bf16.png",
    "lab11_samples_tf32.png": "dcgan/samples_tf32.png",
}
# The site's pages a placeholder may point to: Doxygen anchor -> the page's source (docs/pages/).
PAGE_SOURCES = {"profiling_stalls": "profiling.md#warp-stall-reasons", "answers": None, "references": "references.md"}


class Renderer:
    """Fills in a template's placeholders. mode "site" writes for Doxygen (the docs site); mode "readme"
    writes plain markdown (the handouts rendered in place): pictures through `picture`, links to the
    site's pages as markdown links to their sources."""

    drawn = None  # the pictures this build made; a page naming another fails the build

    def __init__(self, data_dir, device, lab, mode="site"):
        self.data_dir = data_dir
        self.device = device
        self.lab = lab
        self.mode = mode
        self.cache = {}
        self.picture = lambda name: name  # where the page finds a picture, by its plot name
        self.page = lambda source: source  # where a README finds a page's source (docs/pages/NAME.md)

    def link(self, anchor, text):
        """A link to a page of the site: a Doxygen reference, or in a README a link to its source."""
        if self.mode == "site":
            return f'\\ref {anchor} "{text}"'
        target = PAGE_SOURCES.get(anchor)
        return f"[{text}]({self.page(target)})" if target else text

    def data(self):
        if self.lab not in self.cache:
            self.cache[self.lab] = labdata.LabData(self.data_dir, self.lab, self.device)
        return self.cache[self.lab]

    def require(self, thing, what):
        if thing is None:
            raise KeyError(f"lab {self.lab}: no {what} for {self.device}")
        return thing

    def lab_data(self, lab, device=None):
        key = (lab, device or self.device)
        if key not in self.cache:
            self.cache[key] = labdata.LabData(self.data_dir, lab, key[1])
        return self.cache[key]

    def term(self, function, argument):
        """One recorded value for calc: function(VARIANT[@PROBLEM][#LAB][!DEVICE][&RECORD][, NAME]); RECORD
        names another results file, docs/data/RECORD_<device>.json (e.g. results/lab05_sweep)."""
        target, _, name = (part.strip() for part in argument.partition(","))
        if function in STEP_TERMS:
            return self.step_term(function, target)
        if function in ("trace_kernels", "trace_end"):  # a timeline: trace_kernels(FILE, WORKER), trace_end(FILE)
            trace = labdata.Trace(self.data_dir, target)
            return trace.kernels_ms(int(name)) if function == "trace_kernels" else trace.end_ms()
        target, _, record = target.partition("&")
        target, _, device = target.partition("!")
        target, _, lab = target.partition("#")
        variant, _, problem = target.partition("@")
        data = self.lab_data(lab or self.lab, device or None)
        if function == "metric":
            return self.require(data.profile, f"profile of lab {lab or self.lab}").value(variant, name)
        # RECORD is a results file (results/lab05_sweep: <device>.json appended), or a driver's log
        # named in full (history/....txt), whose "timed NAME: T ms (median)" lines give ms().
        path = pathlib.Path(self.data_dir) / (record if "." in record else f"{record}_{device or self.device}.json")
        if record and not path.exists():
            raise KeyError(f"calc: no record {path}")
        if function in ("layer", "layer_gflops") + FLOOR_TERMS:
            # The DCGAN's per layer: layer(VARIANT@bBATCH, INDEX) ms, or GFLOP/s, of lab 09's record or &RECORD's
            # (results/lab11_dcgan); the layer's floors in ms (dcgan_tables.layer_floors): compute_floor,
            # memory_floor, and floor, the larger (a precision with no recorded ceiling has neither).
            measured = Record.load(path if record else data.results_path)
            layers = measured.layers
            if f"{variant}/{problem}" not in layers:
                raise KeyError(f"calc: no layer times for {variant}/{problem}")
            table = layers[f"{variant}/{problem}"]
            if function in FLOOR_TERMS:
                ceilings = dcgan_tables.floor_ceilings(self.data_dir, device or self.device)
                row = dcgan_tables.layer_floors(table, variant, ceilings, measured.context.get("date", ""))[int(name)]
                if not row["complete"] and function != "memory_floor":
                    raise KeyError(f"calc: {variant} layer {name} computes in {row['precision']}: no recorded ceiling")
                return row[{"compute_floor": "compute_ms", "memory_floor": "memory_ms", "floor": "floor_ms"}[function]]
            return float(table["gflops" if function == "layer_gflops" else "ms"][int(name)])
        if record:
            if path.suffix == ".txt":
                if function != "ms":
                    raise KeyError(f"calc: a driver's log gives ms() only ({record})")
                timed = dict(re.findall(r"timed (\S+): ([\d.]+) ms \(median\)", path.read_text()))
                name = next(
                    (
                        n
                        for n in timed
                        if n.split("/")[-2 if n.count("/") > 1 else 0] == variant
                        and (not problem or n.endswith("/" + problem))
                    ),
                    None,
                )
                if name is None:
                    raise KeyError(f"calc: {record} times no {variant}@{problem}")
                return float(timed[name])
            results = labdata.Results(path)
        else:
            results = self.require(data.results, f"results of lab {lab or self.lab}")
        if function == "pct":
            return results.percent_of_cublas(variant, problem or None)
        entry = (
            results.cublas(problem or results.default_problem())
            if variant == "cublas"
            else results.entry(variant, problem or None)
        )
        if function == "counter" and name == "pct_cublas":
            raise KeyError("calc: counter(V, pct_cublas) is not how the suite defines % of cuBLAS: use pct(V)")
        field = {"ms": "real_time", "gflops": "gflops", "counter": name}[function]
        if field not in entry:
            raise KeyError(f"lab {lab or self.lab}: {variant} has no {field}")
        return float(entry[field])

    def steps_run(self, record, device):
        key = ("steps", record, device)
        if key not in self.cache:
            self.cache[key] = attention_steps.StepsRun(self.data_dir, record, device)
        return self.cache[key]

    def step_term(self, function, target):
        """step_tflops(ROW@PROBLEM!DEVICE&RECORD) and the ratios of one row of a lab13_attention_steps run."""
        target, _, record = target.partition("&")
        target, _, device = target.partition("!")
        row, _, problem = target.partition("@")
        if not (record and problem):
            raise KeyError(f"calc: {function}({target}) names no record (&RECORD) or no problem (@PROBLEM)")
        run = self.steps_run(record, device or self.device)
        if function == "step_tflops":
            return run.gflops(row, problem) / 1000
        if function == "step_improved":
            return run.improved(row, problem)
        return run.ratio(row, problem, "best" if function == "step_best" else "flash")

    def calc(self, expression):
        """Evaluates EXPR (numbers, + - * / and parentheses over recorded terms)."""
        values = []

        def substitute(match):
            values.append(self.term(match.group(1), match.group(2)))
            return f"v[{len(values) - 1}]"

        arithmetic = re.sub(
            r"\b(ms|gflops|pct|counter|metric|layer_gflops|layer|compute_floor|memory_floor|floor|trace_kernels|"
            r"trace_end|" + "|".join(STEP_TERMS) + r")\(([^()]*)\)",
            substitute,
            expression,
        )
        if not re.fullmatch(r"(?:v\[\d+\]|\d+(?:\.\d+)?(?:e\d+)?|[\s+*/()\-])*", arithmetic):
            raise KeyError(f"calc: '{expression}' is not arithmetic over ms(), gflops(), pct(), counter(), metric()")
        return eval(arithmetic, {"__builtins__": {}}, {"v": values})  # noqa: S307 - digits, operators and v[i] only

    # One handler per placeholder kind: handler(self, key, arg) -> text, where {{key:arg}} is the placeholder.
    # The table (HANDLERS) follows the methods; a kind not in it fails the build.

    def _as_written(self, key, arg):
        """{{quote:TEXT}} {{const:TEXT}}: shown as written (check_numbers.py accepts them)."""
        return arg

    def _fastest(self, key, arg):
        """The progression's rule, the plot's too: the lab's variant with the highest GFLOP/s at 4096^3."""
        results = self.require(self.lab_data(arg).results, f"results of lab {arg}")
        best = max(
            (b for b in results.entries(labdata.PROBLEM) if b["run_name"].startswith("lab")), key=lambda b: b["gflops"]
        )
        if key == "fastest_pct":
            return f"{100 * best['gflops'] / results.cublas(labdata.PROBLEM)['gflops']:.1f} %"
        if key == "fastest_name":
            return results.variant_of(best["run_name"])
        if key == "fastest_gflops":
            return f"{best['gflops']:,.0f}"
        return f"{results.variant_of(best['run_name'])} {best['gflops']:,.0f} GFLOP/s"

    def _record(self, key, arg):
        """A results record (docs/data/RECORD_<device>.json) by its RECORD name, as calc's &RECORD names it;
        RECORD@DEVICE names another device's."""
        arg, _, device = arg.partition("@")
        path = pathlib.Path(self.data_dir) / f"{arg}_{device or self.device}.json"
        if not path.exists():
            raise KeyError(f"{key}: no record {path}")
        return labdata.Results(path)

    def _run_of(self, key, arg):
        """A results record's run in a few words: device, date and commit."""
        c = self._record(key, arg).context
        return f"{c['device']}, {c['date'][:10]}, commit {c['git_commit'][:7]}"

    def _record_note(self, key, arg):
        """Where a results record comes from: device, date, commit and command."""
        return self._record(key, arg).note()

    def _pending(self, key, arg):
        """{{pending:RECORD[.EXT]}}: a table or figure not measured yet, said in words (no number), until the
        record docs/data/RECORD_<device>.json (.EXT) exists; then the placeholder fails: quote the record."""
        arg, _, device = arg.partition("@")
        stem, _, extension = arg.partition(".")
        name = f"{stem}_{device or self.device}.{extension or 'json'}"
        if (pathlib.Path(self.data_dir) / name).exists():
            raise KeyError(f"pending: docs/data/{name} exists now: replace {{{{pending:{arg}}}}} by what it measured")
        return f"*Not measured yet on the {device or self.device}: the lab's GPU run will write docs/data/{name}.*"

    def _random_shapes(self, key, arg):
        """{{random_shapes:RECORD}}: what scripts/gemm-random-shapes draws and the goals it is held to, then its
        summary docs/data/RECORD_<device>.json (random_shapes.markdown) and the plot of its ratios, or, until the
        record exists, a line saying so (no figure)."""
        path = pathlib.Path(self.data_dir) / f"{arg}_{self.device}.json"
        if not path.exists():
            return (
                f"{random_shapes.about()}\n\n*Not measured yet on the {self.device}: a GPU run of "
                f"`scripts/gemm-random-shapes` will write docs/data/{arg}_{self.device}.json.*"
            )
        summary = random_shapes.load_summary(path)
        return "\n\n".join(
            [
                random_shapes.about(summary["distribution"]),
                random_shapes.markdown(summary),
                self._plot("plot", f"{pathlib.Path(arg).name}.svg"),
            ]
        )

    def _attention_steps(self, key, arg):
        """{{attention_steps:RECORD@DEVICE}}: one run of lab 13's steps beside PyTorch's SDPA, as a table."""
        record, _, device = arg.partition("@")
        run = self.steps_run(record, device or self.device)
        return f"{run.table()}\n\n{run.note()}"

    def _step_profiles(self, key, arg):
        """{{step_profiles:RECORD@DEVICE}}: the steps' Nsight Compute table, or a line saying it is not measured."""
        record, _, device = arg.partition("@")
        return step_profiles.markdown(pathlib.Path(self.data_dir), record, device or self.device)

    def _kernel_of(self, key, arg):
        """Which variant's kernel another variant launched at the profiled problem (e.g. best -> the tile it
        picked): the variant whose profiled kernel has the same name, from the lab's profile."""
        return self.require(self.data().profile, "profile").same_kernel_as(arg)

    def _coarsening_best(self, arg):
        self.require(self.data().results, "results")
        return max(labdata.coarsening_rows(self.data(), arg), key=lambda r: r["speedup"])

    def _coarsening_factor(self, key, arg):
        return str(self._coarsening_best(arg)["factor"])

    def _coarsening_speedup(self, key, arg):
        return f"{self._coarsening_best(arg)['speedup']:.2f}x faster than factor 1"

    def _coarsening(self, key, arg):
        self.require(self.data().results, "results")
        return labdata.coarsening_table(self.data(), self.data_dir, arg)

    def _diff(self, key, arg):
        return kernel_diff(self.repo(), *arg.split(":"))

    def _sass(self, key, arg):
        """{{sass:NAME:KERNEL:OPCODE}}: an instruction count of one kernel from a SASS mix (scripts/sass-mix)."""
        name, kernel, opcode = arg.split(":")
        path = pathlib.Path(self.data_dir) / "profiles" / f"{name}.csv"
        if not path.exists():
            raise KeyError(f"sass: no SASS mix {path}")
        with path.open() as file:
            rows = [r for r in csv.DictReader(file) if re.search(kernel, r["kernel"]) and r["opcode"] == opcode]
        if len({r["kernel"] for r in rows}) != 1:
            raise KeyError(
                f"sass: '{kernel}' matches {len({r['kernel'] for r in rows})} kernels with {opcode} in {path}"
            )
        return f"{int(rows[0]['count']):,}"

    def _sass_hot(self, key, arg):
        return sass_hot_table(pathlib.Path(self.data_dir) / "profiles" / f"{arg}_{self.device}.csv")

    def _text_record(self, key, arg):
        """A figure copied from a text record: shown as written, and the build fails if the record
        (docs/data/FILE) does not hold it."""
        name, _, text = arg.partition(":")
        path = pathlib.Path(self.data_dir) / name
        if not path.exists() or text not in path.read_text(errors="replace"):
            raise KeyError(f"record: docs/data/{name} does not hold '{text}'")
        return text

    def _json(self, key, arg):
        name, field, fmt = arg.split(":")
        value = json.loads((pathlib.Path(self.data_dir) / name).read_text())
        for part in field.split("."):
            value = value[int(part)] if isinstance(value, list) else value[part]
        return FORMATS[fmt](float(value))

    def _tuning(self, key, arg):
        """Lab 09's tuning record (docs/data/dcgan/tuning.md): COMMIT/BATCH[/N]:COLUMN:FORMAT, the N-th row
        of that commit and batch."""
        spec, column, fmt = arg.split(":")
        commit, batch, *nth = spec.split("/")
        rows = [r for r in dcgan_tables.tuning_rows(self.data_dir) if r["commit"] == commit and r["batch"] == batch]
        index = int(nth[0]) - 1 if nth else 0
        if index >= len(rows) or column not in rows[index]:
            raise KeyError(f"tuning: no row {spec} with a column '{column}' in docs/data/dcgan/tuning.md")
        return FORMATS[fmt](labdata.number(rows[index][column].split()[0]))

    def _calc(self, key, arg):
        expression, _, fmt = arg.rpartition(":")
        return FORMATS[fmt](self.calc(expression))

    def _set_lab(self, key, arg):
        self.lab = arg
        return ""

    def _multigpu(self, key, arg):
        flavour, _, device = arg.partition("@")
        return dcgan_tables.scaling(self.data_dir, device, flavour)

    DCGAN_TABLES = {
        "throughput": dcgan_tables.throughput,
        "end_to_end": dcgan_tables.end_to_end,
        "tensor_cores": dcgan_tables.tensor_cores,
        "pytorch_configs": dcgan_tables.pytorch_configs,
    }

    def _dcgan(self, key, arg):
        table, _, batch = arg.partition("@")
        if table == "layers":
            return dcgan_tables.layers(self.data_dir, self.device, batch or "1024")
        if table == "tensor_core_layers":
            return dcgan_tables.tensor_core_layers(self.data_dir, self.device, batch or "5248")
        return self.DCGAN_TABLES[table](self.data_dir, self.device)

    def _results(self, key, arg):
        if arg:  # {{results:RECORD}}: another results record's tables (results/lab13_pytorch)
            return self._record(key, arg).tables()
        return self.require(self.data().results, "results").tables()

    def _sweep(self, key, arg):
        sweep = self.require(self.data().sweep, "sweep")
        return sweep.compact_table() if arg == "compact" else sweep.tables()

    def _section(self, key, arg):
        table = self.require(self.data().profile, "profile").table(labdata.SECTIONS[arg])
        if arg == "stalls":
            table += (
                "\n\nCycles a warp spent in each stall per instruction it issued; what each reason means, and "
                f"what usually cures it: {self.link('profiling_stalls', 'the profiling guide')}."
            )
        return table

    def _edition(self, key, arg):
        return (
            "Instructor's edition: the walkthroughs show the solutions' code, and the answer keys are on "
            "\\ref answers."
            if editions.of(self.repo()) == editions.INSTRUCTORS
            else "Student edition: no solution code and no answer keys (written by make release-students)."
        )

    def _edition_commands(self, key, arg):
        # make run builds what the copy has: the solutions in the instructor's, the student's kernels in a release.
        what = (
            "build the reference solutions and run every lab in order"
            if editions.of(self.repo()) == editions.INSTRUCTORS
            else "build your kernels and run every lab in order"
        )
        return (
            "```\n"
            f"make run     # {what}, then the progression table (needs a GPU)\n"
            "make test    # build everything and run the tests (GPU tests are reported skipped, with the reason, "
            "without a GPU)\n```"
        )

    SOLUTION_NOT_HERE = '# no reference solution in this copy: compare your table with "Measured" below'

    def _solution_run(self, key, arg):
        return arg if editions.of(self.repo()) == editions.INSTRUCTORS else self.SOLUTION_NOT_HERE

    def _rubric_labs(self, key, arg):
        labs = sorted(grading_tables.rubric_totals(self.repo()))
        return f"{labs[0]}-{labs[-1]}" if len(labs) > 1 else labs[0]

    def _rubric_total(self, key, arg):
        """The points the rubric gives now: all labs, or one lab (rubric_total:07)."""
        totals = grading_tables.rubric_totals(self.repo())
        return f"{(totals[arg] if arg else sum(totals.values())):g}"

    def _rubric_points(self, key, arg):
        return grading_tables.rubric_points(self.repo())

    def _technique_rules(self, key, arg):
        return grading_tables.technique_rules(self.repo())

    def _course_map(self, key, arg):
        """The main README's table of the labs (handouts.progression_table, from every lab.json), for the site:
        each lab's link to its handout becomes a reference to its page."""
        from cudalabs.docs import handouts  # which renders with this module

        text = handouts.progression_table(self.repo())
        text = re.sub(r"\[(\d\d)\]\(labs/[^)]*\)", lambda m: f'\\ref lab{m.group(1)} "{m.group(1)}"', text)
        text = text.replace("](docs/pages/", "](")
        lab = self.lab
        try:
            return self.render(text).strip("\n")
        finally:
            self.lab = lab

    def _read_more_lists(self, key, arg):
        """Every lab's read-more list, from its handout source, for the references page."""
        from cudalabs.docs import handouts  # which renders with this module

        return handouts.read_more_lists(self.repo())

    def _semester_plan(self, key, arg):
        return grading_tables.semester_plan(self.repo())

    def _lab_effort(self, key, arg):
        return grading_tables.lab_effort(self.repo())

    def _effort(self, key, arg):
        """{{effort:hours}}: the time the lab takes (its lab.json's effort)."""
        if arg != "hours":
            raise KeyError(f"effort:{arg}: only effort:hours is known")
        return grading_tables.hours(self.repo(), self.lab)

    def _bad_input_tests(self, key, arg):
        return reliability.table(self.repo())

    def _plot(self, key, arg):
        if Renderer.drawn is not None and arg not in Renderer.drawn:
            raise KeyError(f"plot {arg}: not drawn (no data for it, or no such plot)")
        caption = PLOT_CAPTIONS.get(arg, plot_caption(arg, self.lab))
        if self.mode == "readme":  # a code browser shows no caption of its own
            return f"![{caption}]({self.picture(arg)})\n\n*{caption}*"
        return f"![{caption}]({self.picture(arg)})"

    def _timing(self, key, arg):
        """{{gflops:V}} {{ms:V}} {{pct:V}}, V = VARIANT[@PROBLEM], of the lab's results."""
        results = self.require(self.data().results, "results")
        variant, _, problem = arg.partition("@")
        if key == "pct":
            return f"{results.percent_of_cublas(variant, problem or None):.1f} %"
        entry = (
            results.cublas(problem or results.default_problem())
            if variant == "cublas"
            else results.entry(variant, problem or None)
        )
        return f"{entry['gflops']:,.0f}" if key == "gflops" else f"{entry['real_time']:.2f}"

    def _metric(self, key, arg):
        variant, metric, fmt = arg.split(":")
        return FORMATS[fmt](self.require(self.data().profile, "profile").value(variant, metric))

    def _ceiling(self, key, arg):
        fma, bandwidth = labdata.ceilings(self.data_dir, self.device)
        return {
            "fma": f"{fma:,.0f} GFLOP/s",
            "bandwidth": f"{bandwidth:,.0f} GB/s",
            "ridge": f"{fma / bandwidth:.1f} FLOP/byte",
        }[arg]

    HANDLERS = {
        "quote": _as_written,
        "const": _as_written,
        "fastest": _fastest,
        "fastest_pct": _fastest,
        "fastest_name": _fastest,
        "fastest_gflops": _fastest,
        "run_of": _run_of,
        "record_note": _record_note,
        "kernel_of": _kernel_of,
        "pending": _pending,
        "random_shapes": _random_shapes,
        "attention_steps": _attention_steps,
        "step_profiles": _step_profiles,
        "coarsening": _coarsening,
        "coarsening_factor": _coarsening_factor,
        "coarsening_speedup": _coarsening_speedup,
        "diff": _diff,
        "sass": _sass,
        "sass_hot": _sass_hot,
        "record": _text_record,
        "json": _json,
        "tuning": _tuning,
        "calc": _calc,
        "lab": _set_lab,
        "multigpu": _multigpu,
        "dcgan": _dcgan,
        "results": _results,
        "sweep": _sweep,
        "section": _section,
        "plot": _plot,
        "gflops": _timing,
        "ms": _timing,
        "pct": _timing,
        "metric": _metric,
        "ceiling": _ceiling,
        "edition": _edition,
        "edition_commands": _edition_commands,
        "solution_run": _solution_run,
        "rubric_labs": _rubric_labs,
        "rubric_total": _rubric_total,
        "rubric_points": _rubric_points,
        "technique_rules": _technique_rules,
        "lab_effort": _lab_effort,
        "course_map": _course_map,
        "read_more_lists": _read_more_lists,
        "semester_plan": _semester_plan,
        "effort": _effort,
        "bad_input_tests": _bad_input_tests,
    }

    def repo(self):
        return pathlib.Path(self.data_dir).parent.parent

    def replace(self, match):
        key, _, arg = match.group(1).partition(":")
        handler = self.HANDLERS.get(key)
        if handler is None:
            raise KeyError(f"unknown placeholder {{{{{match.group(1)}}}}}")
        return handler(self, key, arg)

    def render(self, text):
        """The template as this copy's edition shows it (editions.py), with every placeholder filled in."""
        text = editions.resolve(text, editions.of(self.repo()))
        return re.sub(r"\{\{([^}]+)\}\}", self.replace, text)


SASS_ROLES = (
    ("FFMA", "the arithmetic"),
    ("LDS", "fragment load from shared memory"),
    ("STS", "tile store to shared memory"),
    ("LDG", "tile load from global memory"),
    ("BAR", "barrier"),
    ("ISETP", "loop or bounds test"),
    ("IADD", "index arithmetic"),
    ("LEA", "address arithmetic"),
    ("BRA", "branch"),
    ("MOV", "register move"),
)


WALKTHROUGH_SOURCES = {"07": "07_wide_loads/warp_tile.cuh"}


def walkthrough_region(repo, number):
    """The lines between the `// [walkthrough]` markers of a lab's solution: the kernel's key lines."""
    folder = next(p.name for p in (repo / "solutions").iterdir() if p.name.startswith(number + "_"))
    path = repo / "solutions" / WALKTHROUGH_SOURCES.get(number, f"{folder}/kernels.cu")
    lines = path.read_text().splitlines()
    marks = [i for i, line in enumerate(lines) if "[walkthrough]" in line]  # as Doxygen's \\snippet finds them
    if len(marks) != 2:
        raise KeyError(f"diff: {path} needs two // [walkthrough] markers")
    return lines[marks[0] + 1 : marks[1]], str(path.relative_to(repo))


def kernel_diff(repo, before, after):
    """What changed in the kernel's key lines from lab `before`'s solution to lab `after`'s."""
    if not (repo / "solutions").is_dir():
        return "*The change from the previous lab's solution is shown in the instructor's edition.*"
    old, old_name = walkthrough_region(repo, before)
    new, new_name = walkthrough_region(repo, after)
    diff = list(difflib.unified_diff(old, new, old_name, new_name, lineterm="", n=2))
    return "```diff\n" + "\n".join(diff) + "\n```"


def plot_caption(name, lab):
    """The caption (and alt text) of a per-lab plot: what it shows and what to look at."""
    if name.endswith("_roofline.svg"):
        return (
            f"Lab {lab}'s variants on the measured roofline, one marker each: left of the ridge a kernel is bound by "
            "the DRAM roof (the slope), right of it by the FP32 roof (flat); the gap under the roof is what the next "
            "lab goes after"
        )
    if name.endswith("_tiles.svg"):
        return f"Lab {lab}'s tiling, drawn from the tile constants in its code: who loads and computes what"
    return (
        f"Every variant of lab {lab} against cuBLAS and the FP32 ceiling: how far each bar is from the dashed "
        "cuBLAS line"
    )


def sass_hot_table(path):
    """A recorded source-level profile (the hottest SASS instructions with their warp-stall samples) as a
    table: share of all samples, the stall reason that dominates, and what the instruction is for."""
    if not path.exists():
        raise KeyError(f"no SASS profile {path}")
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    total = next(
        float(line.split(",")[1]) for line in path.read_text().splitlines() if line.startswith("# total samples")
    )
    rows = list(csv.DictReader(lines))
    out = ["| offset | SASS | share of stall samples | dominant reason | role |", "| --- | --- | ---: | --- | --- |"]
    for row in rows[:12]:
        reasons = {k[6:]: float(v) for k, v in row.items() if k.startswith("stall_") and k != "stall_selected"}
        dominant = max(reasons, key=reasons.get)
        opcode = row["sass"].split()[0]
        role = next((r for prefix, r in SASS_ROLES if opcode.startswith(prefix)), opcode)
        out.append(
            f"| {row['offset']} | `{row['sass']}` | {100 * float(row['samples']) / total:.1f} % | "
            f"{dominant.replace('_', ' ')} | {role} |"
        )
    return "\n".join(out)

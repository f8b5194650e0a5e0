// raw_driver: the CUDA Python seed's workflow in plain C++ against the driver API, and
// nothing else, as the baseline KernelPad is measured against (bench/compare).
//
//   raw_driver kernel --source saxpy.cu --kernel saxpy --n N --grid G --block B
//                     [--reps R] [--warmup W] [--fmad true|false] [--device D]
//                     [--blocking 1|0]
//   raw_driver launch-throughput [--launches N] [--repeats K] [--device D]
//   raw_driver copy [--bytes B] [--reps R] [--device D]
//   raw_driver info [--device D]
//
// Timed samples are queued in chunks behind the blocking kernel KernelPad uses (its CUDA
// source is the one thing taken from KernelPad: core/run/BlockingKernelSource.h).
//
// Each prints one JSON object on stdout. It links libcuda directly (the toolkit's stub at
// link time, the driver's libcuda.so.1 at run time), so without a driver the dynamic loader
// stops it before main with "libcuda.so.1: cannot open shared object file".
// Exit codes as kernelpad-cli's: 1 compile error, 3 CUDA error, 4 bad arguments.

#include "core/run/BlockingKernelSource.h" // the same kernel KernelPad queues samples behind

#include <cuda.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kExitCompileError = 1;
constexpr int kExitCudaError = 3;
constexpr int kExitBadInput = 4;
/// Timed launches are queued in chunks of about this much GPU time, as KernelPad's
/// Executor does (core/run/ExecutionSession.cpp, kChunkTargetMs), so both wait on the GPU alike.
constexpr double kChunkTargetMs = 100.0;
/// Launches before the timed ones in launch-throughput, so that the first-launch setup
/// of the module and the stream's queue are out of the measurement.
constexpr int kThroughputWarmupLaunches = 1000;

const char* const kEmptyKernel = "extern \"C\" __global__ void empty() {}\n";

/// Samples queued behind one blocking kernel, and its timeout (KernelPad's values).
constexpr int kMaxBlockedChunk = 128;
constexpr unsigned long long kBlockTimeoutNs = 1000000000ull;

[[noreturn]] void die(int code, const std::string& message) {
    std::fprintf(stderr, "raw_driver: %s\n", message.c_str());
    std::exit(code);
}

void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS)
        return;
    const char* name = nullptr;
    const char* text = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    die(kExitCudaError, std::string(what) + " failed: " + (name ? name : "?") + " (" +
                            (text ? text : "no description") + ")");
}

void checkNvrtc(nvrtcResult r, const char* what) {
    if (r != NVRTC_SUCCESS)
        die(kExitCompileError, std::string(what) + " failed: " + nvrtcGetErrorString(r));
}

/// --name value pairs after the mode.
std::map<std::string, std::string> parseOptions(int argc, char** argv) {
    std::map<std::string, std::string> options;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--", 0) != 0 || i + 1 >= argc)
            die(kExitBadInput, "expected --option value, got '" + a + "'");
        options[a.substr(2)] = argv[++i];
    }
    return options;
}

long long intOption(const std::map<std::string, std::string>& o, const std::string& name,
                    long long fallback) {
    const auto it = o.find(name);
    if (it == o.end())
        return fallback;
    char* end = nullptr;
    const long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (*end != '\0' || v < 0)
        die(kExitBadInput,
            "--" + name + " takes a non-negative integer (got '" + it->second + "')");
    return v;
}

/// The toolkit include directories, as KernelPad's ProgramOptions::toFlags appends them.
std::vector<std::string> toolkitIncludeFlags() {
    std::vector<std::string> roots;
    for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(env))
            roots.emplace_back(v);
    roots.emplace_back("/usr/local/cuda");
    for (const std::string& root : roots) {
        if (std::ifstream(root + "/include/cuda.h"))
            return {"-I" + root + "/include", "-I" + root + "/include/cccl"};
    }
    return {};
}

struct Compiled {
    std::vector<char> cubin;
    double compileMs = 0;
};

/// NVRTC to CUBIN for exactly `arch` (-arch=sm_XY), with KernelPad's flag order.
Compiled compileToCubin(const std::string& source, const std::string& name, const std::string& arch,
                        const std::string& fmad) {
    const auto started = std::chrono::steady_clock::now();
    nvrtcProgram program = nullptr;
    checkNvrtc(nvrtcCreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr),
               "nvrtcCreateProgram");
    std::vector<std::string> flags{"-arch=" + arch};
    if (!fmad.empty())
        flags.push_back("--fmad=" + fmad);
    for (const std::string& f : toolkitIncludeFlags())
        flags.push_back(f);
    std::vector<const char*> pointers;
    for (const std::string& f : flags)
        pointers.push_back(f.c_str());
    const nvrtcResult compiled =
        nvrtcCompileProgram(program, int(pointers.size()), pointers.data());
    if (compiled != NVRTC_SUCCESS) {
        size_t logSize = 0;
        nvrtcGetProgramLogSize(program, &logSize);
        std::string log(logSize, '\0');
        nvrtcGetProgramLog(program, log.data());
        std::fprintf(stderr, "%s\n", log.c_str());
        checkNvrtc(compiled, "nvrtcCompileProgram");
    }
    Compiled out;
    size_t size = 0;
    checkNvrtc(nvrtcGetCUBINSize(program, &size), "nvrtcGetCUBINSize");
    out.cubin.resize(size);
    checkNvrtc(nvrtcGetCUBIN(program, out.cubin.data()), "nvrtcGetCUBIN");
    nvrtcDestroyProgram(&program);
    out.compileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    return out;
}

/// cuInit, the device, and its primary context made current: the context KernelPad uses
/// (core/cuda/Context), so both see the same driver state.
struct Session {
    CUdevice device = 0;
    CUcontext context = nullptr;
    CUstream stream = nullptr;
    std::string arch;
    std::string name;

    explicit Session(int ordinal) {
        check(cuInit(0), "cuInit");
        check(cuDeviceGet(&device, ordinal), "cuDeviceGet");
        int major = 0, minor = 0;
        check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
              "cuDeviceGetAttribute");
        check(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
              "cuDeviceGetAttribute");
        arch = "sm_" + std::to_string(major) + std::to_string(minor);
        char buffer[256] = {};
        check(cuDeviceGetName(buffer, sizeof buffer, device), "cuDeviceGetName");
        name = buffer;
        check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
        check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
        check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    }
    ~Session() {
        cuStreamDestroy(stream);
        cuDevicePrimaryCtxRelease(device);
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
};

CUfunction loadKernel(const Compiled& compiled, const char* name, CUmodule* module) {
    check(cuModuleLoadData(module, compiled.cubin.data()), "cuModuleLoadData");
    CUfunction f = nullptr;
    check(cuModuleGetFunction(&f, *module, name), "cuModuleGetFunction");
    return f;
}

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string jsonString(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string jsonArray(const std::vector<double>& v) {
    std::ostringstream out;
    out.precision(9);
    out << '[';
    for (size_t i = 0; i < v.size(); ++i)
        out << (i ? "," : "") << v[i];
    return out.str() + ']';
}

/// The blocking kernel loaded and its pinned, mapped flag: [0] release, [1] timed out.
struct Blocker {
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    volatile int* host = nullptr;
    CUdeviceptr device = 0;
    int timeouts = 0;

    explicit Blocker(const Session& s) {
        const Compiled compiled =
            compileToCubin(kernelpad::kBlockingKernelSource, "kernelpad_block.cu", s.arch, {});
        function = loadKernel(compiled, kernelpad::kBlockingKernelName, &module);
        void* pinned = nullptr;
        check(cuMemAllocHost(&pinned, 2 * sizeof(int)), "cuMemAllocHost");
        host = static_cast<volatile int*>(pinned);
        check(cuMemHostGetDevicePointer(&device, pinned, 0), "cuMemHostGetDevicePointer");
    }
    ~Blocker() {
        cuMemFreeHost(const_cast<int*>(host));
        cuModuleUnload(module);
    }
    Blocker(const Blocker&) = delete;
    Blocker& operator=(const Blocker&) = delete;

    void block(CUstream stream) {
        host[0] = 0;
        host[1] = 0;
        unsigned long long timeout = kBlockTimeoutNs;
        void* params[] = {&device, &timeout};
        check(cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr),
              "cuLaunchKernel block");
    }
    void release() { host[0] = 1; }
};

/// Warm-up, then per repetition: start event, launch, stop event (KernelPad's Executor),
/// each chunk queued behind the blocking kernel when `blocker` is given.
std::vector<double> timeLaunches(const Session& s, CUfunction f, unsigned grid, unsigned block,
                                 void** params, int warmup, int reps, Blocker* blocker) {
    CUevent warmStart = nullptr, warmStop = nullptr;
    check(cuEventCreate(&warmStart, CU_EVENT_DEFAULT), "cuEventCreate");
    check(cuEventCreate(&warmStop, CU_EVENT_DEFAULT), "cuEventCreate");
    check(cuEventRecord(warmStart, s.stream), "cuEventRecord");
    for (int i = 0; i < warmup; ++i)
        check(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s.stream, params, nullptr),
              "cuLaunchKernel");
    check(cuEventRecord(warmStop, s.stream), "cuEventRecord");
    check(cuEventSynchronize(warmStop), "cuEventSynchronize");
    float warmMs = 0;
    check(cuEventElapsedTime(&warmMs, warmStart, warmStop), "cuEventElapsedTime");
    const double perLaunchMs = warmup > 0 ? double(warmMs) / warmup : kChunkTargetMs;
    const int chunk = std::clamp(int(kChunkTargetMs / std::max(perLaunchMs, 1e-3)), 1,
                                 std::max(blocker ? std::min(reps, kMaxBlockedChunk) : reps, 1));

    std::vector<CUevent> starts(static_cast<size_t>(reps)), stops(static_cast<size_t>(reps));
    for (int i = 0; i < reps; ++i) {
        check(cuEventCreate(&starts[size_t(i)], CU_EVENT_DEFAULT), "cuEventCreate");
        check(cuEventCreate(&stops[size_t(i)], CU_EVENT_DEFAULT), "cuEventCreate");
    }
    std::vector<double> times;
    for (int done = 0; done < reps;) {
        const int n = std::min(chunk, reps - done);
        if (blocker)
            blocker->block(s.stream);
        for (int i = done; i < done + n; ++i) {
            check(cuEventRecord(starts[size_t(i)], s.stream), "cuEventRecord");
            check(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s.stream, params, nullptr),
                  "cuLaunchKernel");
            check(cuEventRecord(stops[size_t(i)], s.stream), "cuEventRecord");
        }
        if (blocker)
            blocker->release();
        check(cuEventSynchronize(stops[size_t(done + n - 1)]), "cuEventSynchronize");
        if (blocker && blocker->host[1] != 0)
            ++blocker->timeouts;
        for (int i = done; i < done + n; ++i) {
            float ms = 0;
            check(cuEventElapsedTime(&ms, starts[size_t(i)], stops[size_t(i)]),
                  "cuEventElapsedTime");
            times.push_back(ms);
        }
        done += n;
    }
    for (int i = 0; i < reps; ++i) {
        cuEventDestroy(starts[size_t(i)]);
        cuEventDestroy(stops[size_t(i)]);
    }
    cuEventDestroy(warmStart);
    cuEventDestroy(warmStop);
    return times;
}

/// The seed's SAXPY: saxpy(float a, float* x, float* y, float* out, size_t n).
int runKernel(const std::map<std::string, std::string>& o) {
    if (!o.count("source") || !o.count("kernel"))
        die(kExitBadInput, "kernel needs --source FILE.cu and --kernel NAME");
    std::ifstream file(o.at("source"));
    if (!file)
        die(kExitBadInput, "cannot read " + o.at("source"));
    std::stringstream text;
    text << file.rdbuf();
    const std::string path = o.at("source");
    const std::string sourceName = path.substr(path.find_last_of('/') + 1);
    const size_t n = size_t(intOption(o, "n", 16777216));
    const unsigned block = unsigned(intOption(o, "block", 256));
    const unsigned grid = unsigned(intOption(o, "grid", (n + block - 1) / std::max(block, 1u)));
    const int reps = int(intOption(o, "reps", 50));
    const int warmup = int(intOption(o, "warmup", 5));
    if (n == 0 || grid == 0 || block == 0 || reps == 0)
        die(kExitBadInput, "--n, --grid, --block and --reps must be at least 1");

    Session s(int(intOption(o, "device", 0)));
    const Compiled compiled = compileToCubin(text.str(), sourceName, s.arch,
                                             o.count("fmad") ? o.at("fmad") : std::string());
    CUmodule module = nullptr;
    CUfunction f = loadKernel(compiled, o.at("kernel").c_str(), &module);

    // Inputs as KernelPad's example draws them: uniform in [-1, 1].
    std::vector<float> hx(n), hy(n), hout(n);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    for (size_t i = 0; i < n; ++i) {
        hx[i] = uniform(rng);
        hy[i] = uniform(rng);
    }
    const size_t bytes = n * sizeof(float);
    CUdeviceptr dx = 0, dy = 0, dout = 0;
    check(cuMemAlloc(&dx, bytes), "cuMemAlloc x");
    check(cuMemAlloc(&dy, bytes), "cuMemAlloc y");
    check(cuMemAlloc(&dout, bytes), "cuMemAlloc out");
    check(cuMemcpyHtoDAsync(dx, hx.data(), bytes, s.stream), "cuMemcpyHtoDAsync x");
    check(cuMemcpyHtoDAsync(dy, hy.data(), bytes, s.stream), "cuMemcpyHtoDAsync y");
    float a = 2.0f;
    void* params[] = {&a, &dx, &dy, &dout, const_cast<size_t*>(&n)};

    // One launch checked on the host, as KernelPad checks its first launch.
    check(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s.stream, params, nullptr),
          "cuLaunchKernel");
    check(cuMemcpyDtoHAsync(hout.data(), dout, bytes, s.stream), "cuMemcpyDtoHAsync out");
    check(cuStreamSynchronize(s.stream), "cuStreamSynchronize");
    size_t wrong = 0;
    const size_t covered = std::min(n, size_t(grid) * block);
    for (size_t i = 0; i < covered; ++i)
        wrong +=
            std::fabs(hout[i] - (a * hx[i] + hy[i])) > 1e-6f + 1e-6f * std::fabs(a * hx[i] + hy[i]);

    std::unique_ptr<Blocker> blocker;
    if (intOption(o, "blocking", 1) != 0)
        blocker = std::make_unique<Blocker>(s);
    const std::vector<double> times =
        timeLaunches(s, f, grid, block, params, warmup, reps, blocker.get());
    const double med = median(times);
    std::printf("{\"mode\":\"kernel\",\"device\":%s,\"arch\":\"%s\",\"kernel\":%s,\"n\":%zu,"
                "\"grid\":%u,\"block\":%u,\"warmup\":%d,\"reps\":%d,\"compileMs\":%.3f,"
                "\"verified\":%s,\"mismatches\":%zu,\"medianMs\":%.9g,\"minMs\":%.9g,"
                "\"GBps\":%.3f,\"blocking\":%s,\"blockingTimeouts\":%d,\"timesMs\":%s}\n",
                jsonString(s.name).c_str(), s.arch.c_str(), jsonString(o.at("kernel")).c_str(), n,
                grid, block, warmup, reps, compiled.compileMs, wrong == 0 ? "true" : "false", wrong,
                med, *std::min_element(times.begin(), times.end()),
                med > 0 ? 3.0 * double(bytes) / (med * 1e6) : 0.0, blocker ? "true" : "false",
                blocker ? blocker->timeouts : 0, jsonArray(times).c_str());
    cuMemFree(dx);
    cuMemFree(dy);
    cuMemFree(dout);
    cuModuleUnload(module);
    return wrong == 0 ? 0 : 2;
}

/// Host cost per back-to-back launch: wall time of N cuLaunchKernel calls and one
/// synchronize, divided by N (3.13 µs on the H100); the median of K such samples.
int runLaunchThroughput(const std::map<std::string, std::string>& o) {
    const long long launches = std::max(1LL, intOption(o, "launches", 100000));
    const int repeats = int(std::max(1LL, intOption(o, "repeats", 5)));
    Session s(int(intOption(o, "device", 0)));
    const Compiled compiled = compileToCubin(kEmptyKernel, "empty.cu", s.arch, {});
    CUmodule module = nullptr;
    CUfunction f = loadKernel(compiled, "empty", &module);
    for (int i = 0; i < kThroughputWarmupLaunches; ++i)
        check(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s.stream, nullptr, nullptr), "cuLaunchKernel");
    check(cuStreamSynchronize(s.stream), "cuStreamSynchronize");
    std::vector<double> samplesUs;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        for (long long i = 0; i < launches; ++i)
            check(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s.stream, nullptr, nullptr),
                  "cuLaunchKernel");
        check(cuStreamSynchronize(s.stream), "cuStreamSynchronize");
        const auto t1 = std::chrono::steady_clock::now();
        samplesUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() /
                            double(launches));
    }
    std::printf("{\"mode\":\"launch-throughput\",\"device\":%s,\"launches\":%lld,\"repeats\":%d,"
                "\"perLaunchUs\":%.6g,\"minPerLaunchUs\":%.6g,\"samplesUs\":%s}\n",
                jsonString(s.name).c_str(), launches, repeats, median(samplesUs),
                *std::min_element(samplesUs.begin(), samplesUs.end()),
                jsonArray(samplesUs).c_str());
    cuModuleUnload(module);
    return 0;
}

/// The device-to-device copy ceiling: GB/s counting the bytes read and the bytes written.
int runCopy(const std::map<std::string, std::string>& o) {
    const size_t bytes = size_t(std::max(1LL, intOption(o, "bytes", 1LL << 30)));
    const int reps = int(std::max(1LL, intOption(o, "reps", 20)));
    Session s(int(intOption(o, "device", 0)));
    CUdeviceptr src = 0, dst = 0;
    check(cuMemAlloc(&src, bytes), "cuMemAlloc source");
    check(cuMemAlloc(&dst, bytes), "cuMemAlloc destination");
    check(cuMemsetD8Async(src, 1, bytes, s.stream), "cuMemsetD8Async");
    CUevent start = nullptr, stop = nullptr;
    check(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    check(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    for (int i = 0; i < 2; ++i) // warm-up
        check(cuMemcpyDtoDAsync(dst, src, bytes, s.stream), "cuMemcpyDtoDAsync");
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        check(cuEventRecord(start, s.stream), "cuEventRecord");
        check(cuMemcpyDtoDAsync(dst, src, bytes, s.stream), "cuMemcpyDtoDAsync");
        check(cuEventRecord(stop, s.stream), "cuEventRecord");
        check(cuEventSynchronize(stop), "cuEventSynchronize");
        float ms = 0;
        check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
        times.push_back(ms);
    }
    const double med = median(times);
    std::printf("{\"mode\":\"copy\",\"device\":%s,\"bytes\":%zu,\"reps\":%d,\"medianMs\":%.9g,"
                "\"GBps\":%.3f,\"timesMs\":%s}\n",
                jsonString(s.name).c_str(), bytes, reps, med, 2.0 * double(bytes) / (med * 1e6),
                jsonArray(times).c_str());
    cuEventDestroy(start);
    cuEventDestroy(stop);
    cuMemFree(src);
    cuMemFree(dst);
    return 0;
}

int runInfo(const std::map<std::string, std::string>& o) {
    Session s(int(intOption(o, "device", 0)));
    int driver = 0, major = 0, minor = 0;
    check(cuDriverGetVersion(&driver), "cuDriverGetVersion");
    checkNvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
    std::printf("{\"mode\":\"info\",\"device\":%s,\"arch\":\"%s\",\"driverVersion\":%d,"
                "\"nvrtcVersion\":\"%d.%d\"}\n",
                jsonString(s.name).c_str(), s.arch.c_str(), driver, major, minor);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode.empty() || mode == "--help" || mode == "-h") {
        std::fprintf(mode.empty() ? stderr : stdout,
                     "usage: raw_driver kernel --source FILE.cu --kernel NAME --n N --grid G "
                     "--block B [--reps R] [--warmup W] [--fmad true|false] [--device D]\n"
                     "       raw_driver launch-throughput [--launches N] [--repeats K]\n"
                     "       raw_driver copy [--bytes B] [--reps R]\n"
                     "       raw_driver info\n");
        return mode.empty() ? kExitBadInput : 0;
    }
    const std::map<std::string, std::string> options = parseOptions(argc, argv);
    if (mode == "kernel")
        return runKernel(options);
    if (mode == "launch-throughput")
        return runLaunchThroughput(options);
    if (mode == "copy")
        return runCopy(options);
    if (mode == "info")
        return runInfo(options);
    die(kExitBadInput, "unknown mode '" + mode + "'");
}

#include "app/cli/CliBench.h"

// The one command that does not go through the Engine (docs/ARCHITECTURE.md, "One door"): it is
// the launch-cost harness that bench/README.md compares with raw_driver, timing core/cuda's own
// Module, Kernel::launch and Stream back to back in this process; through the Engine it would
// time the runner's request handling instead of the launch. It uses the value layers the
// Engine passes on (compile, cuda, launch), never a runner or an executor.

#include "app/cli/CliCommands.h"
#include "core/compile/Program.h"
#include "core/cuda/Context.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/Device.h"
#include "core/cuda/DriverApi.h"
#include "core/cuda/Module.h"
#include "core/cuda/Stream.h"
#include "core/launch/Packing.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

namespace kernelpad::cli {
namespace {

/// The kernel whose launch costs only the launch (bench/compare runs raw_driver on the same).
const char* const kEmptyKernel = "extern \"C\" __global__ void empty() {}\n";
constexpr int kDefaultLaunches = 100000;
constexpr int kDefaultRepeats = 5;
/// Launches before the timed ones, so that the module's first-launch setup and the
/// stream's queue are out of the measurement (raw_driver does the same).
constexpr int kWarmupLaunches = 1000;

struct BenchOptions {
    int launches = kDefaultLaunches;
    int repeats = kDefaultRepeats;
    int device = 0;
    bool json = false;
};

int fail(int code, const QString& status, const QString& message, bool json) {
    if (json)
        printJson(QJsonObject{{"status", status}, {"error", message}});
    else
        QTextStream(stderr) << "kernelpad-cli: " << message << '\n';
    return code;
}

std::optional<BenchOptions> parse(const QStringList& args, QString* error) {
    BenchOptions o;
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == QLatin1String("--json")) {
            o.json = true;
            continue;
        }
        int* target = a == QLatin1String("--launches")  ? &o.launches
                      : a == QLatin1String("--repeats") ? &o.repeats
                      : a == QLatin1String("--device")  ? &o.device
                                                        : nullptr;
        if (!target) {
            *error = QStringLiteral("bench-launch: unknown option %1").arg(a);
            return std::nullopt;
        }
        bool ok = false;
        const int value = i + 1 < args.size() ? args[i + 1].toInt(&ok) : 0;
        const int minimum = target == &o.device ? 0 : 1;
        if (!ok || value < minimum) {
            *error = QStringLiteral("bench-launch: %1 takes an integer >= %2").arg(a).arg(minimum);
            return std::nullopt;
        }
        *target = value;
        ++i;
    }
    return o;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

} // namespace

int runBenchLaunch(const QStringList& args) {
    QString error;
    const bool jsonWanted = args.contains(QStringLiteral("--json"));
    const std::optional<BenchOptions> o = parse(args, &error);
    if (!o)
        return fail(kExitBadInput, QStringLiteral("bad-input"), error, jsonWanted);
    if (!DriverApi::load(&error))
        return fail(kExitCudaError, QStringLiteral("driver-unavailable"),
                    QStringLiteral("%1: bench-launch needs an NVIDIA driver").arg(error), o->json);
    try {
        const Device device(o->device);
        const DeviceInfo info = device.info();
        const Context context(device);
        const CompileResult compiled =
            Program(QString::fromLatin1(kEmptyKernel), QStringLiteral("empty.cu"), ProgramOptions{})
                .compile(info.arch());
        if (!compiled.ok)
            return fail(kExitCompileError, QStringLiteral("compile-error"), compiled.log, o->json);
        const Module module(compiled.cubin);
        const Kernel kernel = module.kernel(QStringLiteral("empty"), QStringLiteral("empty"));
        const Stream stream;
        std::optional<PackedArgs> packed = PackedArgs::pack({}, {}, &error);
        if (!packed)
            return fail(kExitBadInput, QStringLiteral("bad-input"), error, o->json);
        const LaunchDims one; // grid 1, block 1

        for (int i = 0; i < kWarmupLaunches; ++i)
            kernel.launch(one, stream, packed->kernelParams());
        stream.synchronize();
        std::vector<double> samplesUs;
        for (int r = 0; r < o->repeats; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < o->launches; ++i)
                kernel.launch(one, stream, packed->kernelParams());
            stream.synchronize();
            const auto t1 = std::chrono::steady_clock::now();
            samplesUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() /
                                o->launches);
        }
        const double perLaunchUs = median(samplesUs);
        const double minUs = *std::min_element(samplesUs.begin(), samplesUs.end());
        if (o->json) {
            QJsonArray samples;
            for (double s : samplesUs)
                samples.append(s);
            printJson(QJsonObject{{"status", "ok"},
                                  {"device", info.name},
                                  {"launches", o->launches},
                                  {"repeats", o->repeats},
                                  {"perLaunchUs", perLaunchUs},
                                  {"minPerLaunchUs", minUs},
                                  {"samplesUs", samples}});
        } else {
            QTextStream(stdout) << QStringLiteral("%1: host cost per back-to-back launch of an "
                                                  "empty kernel: %2 us (median of %3 x %4 "
                                                  "launches; best %5 us)\n")
                                       .arg(info.name)
                                       .arg(perLaunchUs, 0, 'f', 3)
                                       .arg(o->repeats)
                                       .arg(o->launches)
                                       .arg(minUs, 0, 'f', 3);
        }
        return kExitOk;
    } catch (const CudaError& e) {
        return fail(kExitCudaError, QStringLiteral("cuda-error"), e.message(), o->json);
    } catch (const DriverUnavailable& e) {
        return fail(kExitCudaError, QStringLiteral("driver-unavailable"),
                    QString::fromUtf8(e.what()), o->json);
    }
}

} // namespace kernelpad::cli

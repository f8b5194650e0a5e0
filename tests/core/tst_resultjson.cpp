// The readers of the runner's result JSON (and the compile cache's and ceilings file's): every
// one goes through core/io/JsonFields, so a field that is missing, of the wrong type, out of
// range or null where null means nothing is refused with a message naming the field's path,
// never read as a quiet zero.

#include "core/io/JsonFields.h"
#include "core/run/DeviceCeiling.h"
#include "core/run/RunTypes.h"
#include "core/runner/Protocol.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <cmath>
#include <functional>
#include <limits>

namespace tst_resultjson {

using namespace kernelpad;

namespace {

/// A result with every optional part present (JIT, pipeline, sanitizer, a global, directives),
/// so that every reader and every field is reached.
RunResult fullResult() {
    RunResult r;
    r.status = RunStatus::VerificationFailed;
    r.error = QStringLiteral("buffer 'y': 1 of 4 elements differs");
    r.compile.ok = true;
    r.compile.nvrtcVersion = QStringLiteral("13.0");
    r.compile.arch = QStringLiteral("sm_90");
    r.compile.flags = {QStringLiteral("-arch=sm_90"), QStringLiteral("-lineinfo")};
    r.compile.log = QStringLiteral("warning: unused variable");
    Diagnostic d;
    d.file = QStringLiteral("saxpy.cu");
    d.line = 3;
    d.column = 7;
    d.severity = Diagnostic::Severity::Warning;
    d.message = QStringLiteral("variable \"t\" was declared but never referenced");
    r.compile.diagnostics = {d};
    r.compile.ptx = QStringLiteral(".version 8.8\n.target sm_90\n");
    KernelInfo k;
    k.name = QStringLiteral("saxpy");
    k.lowered = QStringLiteral("_Z5saxpyfPKfPfi");
    k.params = {PtxParam{QStringLiteral("p0"), QStringLiteral(".f32"), 4, 4, false},
                PtxParam{QStringLiteral("p1"), QStringLiteral(".u64"), 8, 8, true}};
    k.maxntid = {256, 1, 1};
    k.reqnctapercluster = {2, 1, 1};
    k.explicitCluster = true;
    r.compile.kernels = {k};
    ModuleGlobal g;
    g.name = QStringLiteral("filter");
    g.lowered = QStringLiteral("filter");
    g.space = QStringLiteral("const");
    g.ptxType = QStringLiteral(".f32");
    g.sizeBytes = 36;
    g.alignBytes = 4;
    g.ptxCount = 9;
    g.sourceType = QStringLiteral("float[9]");
    r.compile.globals = {g};
    r.compile.loweredNames = {{QStringLiteral("saxpy"), QStringLiteral("_Z5saxpyfPKfPfi")}};
    r.compile.compileMs = 12.5;
    r.compile.nvrtcMs = 11.0;
    r.compile.cacheHit = true;
    r.compile.fromCache = CompileResult::CacheTier::Disk;
    r.device.ordinal = 0;
    r.device.name = QStringLiteral("NVIDIA H100 80GB HBM3");
    r.device.ccMajor = 9;
    r.device.totalMemBytes = qint64(85) << 30;
    r.device.smCount = 132;
    r.device.maxBlockDim = {1024, 1024, 64};
    r.device.maxGridDim = {2147483647, 65535, 65535};
    r.device.warpSize = 32;
    r.device.pciBusId = QStringLiteral("0000:01:00.0");
    r.device.driverVersion = 13000;
    r.kernelLowered = k.lowered;
    r.launch.grid = {4, 1, 1};
    r.launch.block = {256, 1, 1};
    r.resources.registers = 16;
    r.resources.occupancy = std::numeric_limits<double>::quiet_NaN();
    r.timing = computeStats({0.02, 0.03, 0.025}, 12288, 2048);
    r.timing.mode = QStringLiteral("hot");
    r.timing.stopReason = QStringLiteral("fixed count");
    r.timing.ceilingGBs = 3000;
    BufferVerification v;
    v.buffer = QStringLiteral("y");
    v.method = QStringLiteral("expression a*x+y");
    v.checked = 4;
    v.maxRelError = std::numeric_limits<double>::quiet_NaN();
    v.mismatches = 1;
    v.firstMismatches = {Mismatch{3, 2.5, 2.0}};
    BufferVerification global;
    global.buffer = QStringLiteral("blocksDone");
    global.method = QStringLiteral("expression 4");
    global.passed = true;
    global.global = true;
    r.verification = {v, global};
    OutputBuffer out;
    out.name = QStringLiteral("y");
    out.type = ValueType::of(ScalarType::Float32);
    out.count = 4;
    r.outputs = {out};
    r.totalMs = 87.25;
    r.console.text = QStringLiteral("hello from block 0\n");
    r.console.totalBytes = r.console.text.size();
    r.jit.used = true;
    r.jit.target = QStringLiteral("sm_90");
    r.jit.jitMs = 97.5;
    r.jit.loadMs = 98.0;
    StepTiming step;
    step.kernel = QStringLiteral("saxpy");
    step.repeat = 2;
    step.stats = computeStats({0.01, 0.011});
    r.pipeline.steps = {step};
    r.pipeline.launches = 2;
    r.pipeline.sequence = computeStats({0.02, 0.021});
    r.pipeline.graph = true;
    r.pipeline.graphReplay = computeStats({0.015, 0.016});
    r.pipeline.graphInstantiateMs = 0.5;
    r.sanitizerTool = SanitizerTool::Memcheck;
    SanitizerReport report;
    report.kind = QStringLiteral("Invalid __global__ write of size 4 bytes");
    report.thread = SanitizerReport::Dim3{1, 0, 0};
    report.block = SanitizerReport::Dim3{0, 0, 0};
    r.sanitizer = {report};
    r.sanitizerErrors = 1;
    return r;
}

CopyCeiling sampleCeiling() {
    CopyCeiling c;
    c.deviceName = QStringLiteral("NVIDIA H100 80GB HBM3");
    c.pciBusId = QStringLiteral("0000:01:00.0");
    c.driverVersion = 13000;
    c.bytes = qint64(1) << 30;
    c.copies = 10;
    c.bestMs = 0.75;
    c.gbs = 2863.3;
    c.measuredAtUtc = QStringLiteral("2026-11-24T15:00:00Z");
    return c;
}

/// Serialises to text and parses again, as the pipe to the runner and the files do.
QJsonObject throughText(const QJsonObject& json) {
    return QJsonDocument::fromJson(QJsonDocument(json).toJson(QJsonDocument::Compact)).object();
}

/// One reader: its sample's JSON, and a read that returns the error (empty when it read).
struct Reader {
    std::function<QJsonObject()> sample;
    std::function<QString(const QJsonObject&)> read;
};

template <typename T> QString readError(const QJsonObject& json) {
    QString error;
    const bool read = T::fromJson(json, &error).has_value();
    return read ? QString() : (error.isEmpty() ? QStringLiteral("(refused silently)") : error);
}

Reader readerNamed(const QString& name) {
    const RunResult r = fullResult();
    if (name == QLatin1String("RunResult"))
        return {[r] { return r.toJson(); }, readError<RunResult>};
    if (name == QLatin1String("CompileResult"))
        return {[r] { return r.compile.toJson(); }, readError<CompileResult>};
    if (name == QLatin1String("Diagnostic"))
        return {[r] { return r.compile.diagnostics[0].toJson(); }, readError<Diagnostic>};
    if (name == QLatin1String("KernelInfo"))
        return {[r] { return r.compile.kernels[0].toJson(); }, readError<KernelInfo>};
    if (name == QLatin1String("PtxParam"))
        return {[r] { return r.compile.kernels[0].params[0].toJson(); }, readError<PtxParam>};
    if (name == QLatin1String("ModuleGlobal"))
        return {[r] { return r.compile.globals[0].toJson(); }, readError<ModuleGlobal>};
    if (name == QLatin1String("DeviceInfo"))
        return {[r] { return r.device.toJson(); }, readError<DeviceInfo>};
    if (name == QLatin1String("JitLog"))
        return {[r] { return r.jit.toJson(); }, readError<JitLog>};
    if (name == QLatin1String("TimingStats"))
        return {[r] { return r.timing.toJson(); }, readError<TimingStats>};
    if (name == QLatin1String("KernelResources"))
        return {[r] { return r.resources.toJson(); }, readError<KernelResources>};
    if (name == QLatin1String("PipelineTiming"))
        return {[r] { return r.pipeline.toJson(); }, readError<PipelineTiming>};
    if (name == QLatin1String("BufferVerification"))
        return {[r] { return r.verification[0].toJson(); }, readError<BufferVerification>};
    if (name == QLatin1String("SanitizerReport"))
        return {[r] { return r.sanitizer[0].toJson(); }, readError<SanitizerReport>};
    if (name == QLatin1String("CopyCeiling"))
        return {[] { return sampleCeiling().toJson(); }, readError<CopyCeiling>};
    qFatal("no reader named %s", qPrintable(name));
    return {};
}

const QStringList kReaders{QStringLiteral("RunResult"),       QStringLiteral("CompileResult"),
                           QStringLiteral("Diagnostic"),      QStringLiteral("KernelInfo"),
                           QStringLiteral("PtxParam"),        QStringLiteral("ModuleGlobal"),
                           QStringLiteral("DeviceInfo"),      QStringLiteral("JitLog"),
                           QStringLiteral("TimingStats"),     QStringLiteral("KernelResources"),
                           QStringLiteral("PipelineTiming"),  QStringLiteral("BufferVerification"),
                           QStringLiteral("SanitizerReport"), QStringLiteral("CopyCeiling")};

/// `value` put at `path` ("timing.timesMs.1": keys, and indexes into arrays) inside `json`;
/// an undefined value removes the field.
QJsonValue replaced(const QJsonValue& json, QStringList path, const QJsonValue& value) {
    const QString head = path.takeFirst();
    if (json.isArray()) {
        QJsonArray array = json.toArray();
        const int index = head.toInt();
        if (path.isEmpty())
            array[index] = value;
        else
            array[index] = replaced(array.at(index), path, value);
        return array;
    }
    QJsonObject object = json.toObject();
    if (path.isEmpty() && value.isUndefined())
        object.remove(head);
    else if (path.isEmpty())
        object.insert(head, value);
    else
        object.insert(head, replaced(object.value(head), path, value));
    return object;
}

const QJsonValue kMissing(QJsonValue::Undefined);
const QJsonValue kNull(QJsonValue::Null);
/// 2^53: the first integer a JSON number may not hold exactly.
const QJsonValue kTwoTo53(9007199254740992.0);
const QJsonValue kTwoTo31(2147483648.0);

} // namespace

class TestResultJson : public QObject {
    Q_OBJECT

private slots:
    void everyReaderReadsItsOwnJson_data();
    void everyReaderReadsItsOwnJson();
    void malformedFieldsAreNamed_data();
    void malformedFieldsAreNamed();
    void nullReadsAsNaNWhereNaNIsWrittenAsNull();
    void optionalPartsStayOptional();
    void resultsWrittenBeforeAFieldExistedStillRead();
    void ceilingThatIsNotAMeasurementIsRefused();
    void protocolCorpusReads_data();
    void protocolCorpusReads();
};

void TestResultJson::everyReaderReadsItsOwnJson_data() {
    QTest::addColumn<QString>("reader");
    for (const QString& name : kReaders)
        QTest::newRow(qPrintable(name)) << name;
}

void TestResultJson::everyReaderReadsItsOwnJson() {
    QFETCH(QString, reader);
    const Reader r = readerNamed(reader);
    const QString error = r.read(throughText(r.sample()));
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestResultJson::malformedFieldsAreNamed_data() {
    QTest::addColumn<QString>("reader");
    QTest::addColumn<QString>("path"); // dots between keys and array indexes
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("message"); // what the error starts with
    const auto row = [](const char* name, const char* reader, const char* path,
                        const QJsonValue& value, const char* message) {
        QTest::newRow(name) << QString::fromLatin1(reader) << QString::fromLatin1(path) << value
                            << QString::fromLatin1(message);
    };
    // The run result, the runner's whole answer: each part's messages carry its path.
    row("status missing", "RunResult", "status", kMissing, "status: missing");
    row("status unknown", "RunResult", "status", QJsonValue("exploded"),
        "status: expected one of \"ok\", \"compile-error\"");
    row("status null", "RunResult", "status", kNull, "status: expected a string, got null");
    row("error a number", "RunResult", "error", QJsonValue(3),
        "error: expected a string, got a number");
    row("sample a string", "RunResult", "timing.timesMs.1", QJsonValue("0.03"),
        "timing.timesMs[1]: expected a number or null, got a string");
    row("samples null", "RunResult", "timing.timesMs", kNull,
        "timing.timesMs: expected an array, got null");
    row("timing missing", "RunResult", "timing", kMissing, "timing: missing");
    row("timing an array", "RunResult", "timing", QJsonValue(QJsonArray{}),
        "timing: expected an object, got an array");
    row("bytes moved 2^53", "RunResult", "timing.bytesMoved", kTwoTo53,
        "timing.bytesMoved: 9007199254740992 is beyond 2^53 - 1");
    row("clock beyond int", "RunResult", "timing.smClockMHz", kTwoTo31,
        "timing.smClockMHz: must be at most 2147483647 (got 2147483648)");
    row("blocking kernel a number", "RunResult", "timing.blockingKernel", QJsonValue(1),
        "timing.blockingKernel: expected a boolean, got a number");
    row("mode null", "RunResult", "timing.mode", kNull, "timing.mode: expected a string, got null");
    row("compile ok missing", "RunResult", "compile.ok", kMissing, "compile.ok: missing");
    row("flag a number", "RunResult", "compile.flags.1", QJsonValue(2),
        "compile.flags[1]: expected a string, got a number");
    row("param size negative", "RunResult", "compile.kernels.0.params.1.sizeBytes", QJsonValue(-1),
        "compile.kernels[0].params[1].sizeBytes: must be >= 0 (got -1)");
    row("diagnostic severity unknown", "RunResult", "compile.diagnostics.0.severity",
        QJsonValue("fatal"), "compile.diagnostics[0].severity: expected one of \"error\"");
    row("lowered name missing", "RunResult", "compile.loweredNames.0.lowered", kMissing,
        "compile.loweredNames[0].lowered: missing");
    row("device dims of two", "RunResult", "device.maxBlockDim", QJsonValue(QJsonArray{1, 2}),
        "device.maxBlockDim: expected [x, y, z], got 2 elements");
    row("device memory a fraction", "RunResult", "device.totalMemBytes", QJsonValue(1.5),
        "device.totalMemBytes: expected a whole number, got 1.5");
    row("device ordinal -2", "RunResult", "device.ordinal", QJsonValue(-2),
        "device.ordinal: must be >= -1 (got -2)");
    row("launch grid 0", "RunResult", "launch.grid.0", QJsonValue(0),
        "launch.grid[0]: must be >= 1 (got 0)");
    row("registers a string", "RunResult", "resources.registers", QJsonValue("16"),
        "resources.registers: expected a whole number, got a string");
    row("occupancy a boolean", "RunResult", "resources.occupancy", QJsonValue(true),
        "resources.occupancy: expected a number or null, got a boolean");
    row("checked a string", "RunResult", "verification.0.checked", QJsonValue("4"),
        "verification[0].checked: expected a whole number, got a string");
    row("mismatch index negative", "RunResult", "verification.0.firstMismatches.0.index",
        QJsonValue(-1), "verification[0].firstMismatches[0].index: must be >= 0 (got -1)");
    row("verification not an array", "RunResult", "verification", QJsonValue(QJsonObject{}),
        "verification: expected an array, got an object");
    row("output type unknown", "RunResult", "outputs.0.type.scalar", QJsonValue("f33"),
        "outputs[0].type.scalar: unknown type 'f33'");
    row("output count missing", "RunResult", "outputs.0.count", kMissing,
        "outputs[0].count: missing");
    row("total time a string", "RunResult", "totalMs", QJsonValue("87"),
        "totalMs: expected a number or null, got a string");
    row("printed bytes negative", "RunResult", "stdoutBytes", QJsonValue(-5),
        "stdoutBytes: must be >= 0 (got -5)");
    row("printed text missing", "RunResult", "stdout", kMissing, "stdout: missing");
    row("jit time a string", "RunResult", "jit.jitMs", QJsonValue("97"),
        "jit.jitMs: expected a number or null, got a string");
    row("step repeat 0", "RunResult", "pipeline.steps.0.repeat", QJsonValue(0),
        "pipeline.steps[0].repeat: must be >= 1 (got 0)");
    row("step sample a string", "RunResult", "pipeline.steps.0.timing.timesMs.0", QJsonValue("x"),
        "pipeline.steps[0].timing.timesMs[0]: expected a number or null, got a string");
    row("graph replay missing", "RunResult", "pipeline.graphReplay", kMissing,
        "pipeline.graphReplay: missing");
    row("sanitizer tool unknown", "RunResult", "sanitizerTool", QJsonValue("asan"),
        "sanitizerTool: expected one of \"none\"");
    row("sanitizer line negative", "RunResult", "sanitizer.0.line", QJsonValue(-1),
        "sanitizer[0].line: must be >= 0 (got -1)");
    row("sanitizer kind empty", "RunResult", "sanitizer.0.kind", QJsonValue(""),
        "sanitizer[0].kind: empty");
    row("sanitizer reports missing", "RunResult", "sanitizer", kMissing, "sanitizer: missing");
    row("sanitizer errors beyond int", "RunResult", "sanitizerErrors", kTwoTo53,
        "sanitizerErrors: 9007199254740992 is beyond 2^53 - 1");

    // Each reader on its own: wrong type, missing, out of range, null.
    row("compile log a number", "CompileResult", "log", QJsonValue(1),
        "log: expected a string, got a number");
    row("compile kernels missing", "CompileResult", "kernels", kMissing, "kernels: missing");
    row("compile tier unknown", "CompileResult", "fromCache", QJsonValue("tape"),
        "fromCache: expected one of \"none\", \"memory\", \"disk\", got 'tape'");
    row("compile language unknown", "CompileResult", "language", QJsonValue("fortran"),
        "language: expected one of \"cuda\"");
    row("compile ok null", "CompileResult", "ok", kNull, "ok: expected a boolean, got null");
    row("diagnostic line beyond int", "Diagnostic", "line", kTwoTo31,
        "line: must be at most 2147483647 (got 2147483648)");
    row("diagnostic message missing", "Diagnostic", "message", kMissing, "message: missing");
    row("diagnostic file null", "Diagnostic", "file", kNull, "file: expected a string, got null");
    row("kernel params an object", "KernelInfo", "params", QJsonValue(QJsonObject{}),
        "params: expected an array, got an object");
    row("kernel maxntid negative", "KernelInfo", "maxntid.0", QJsonValue(-256),
        "maxntid[0]: must be >= 0 (got -256)");
    row("kernel name missing", "KernelInfo", "name", kMissing, "name: missing");
    row("param pointer null", "PtxParam", "isPointer", kNull,
        "isPointer: expected a boolean, got null");
    row("param align a fraction", "PtxParam", "alignBytes", QJsonValue(4.5),
        "alignBytes: expected a whole number, got 4.5");
    row("global space unknown", "ModuleGlobal", "space", QJsonValue("shared"),
        "space: expected one of \"const\", \"global\", got 'shared'");
    row("global count 2^53", "ModuleGlobal", "ptxCount", kTwoTo53,
        "ptxCount: 9007199254740992 is beyond 2^53 - 1");
    row("global initialized missing", "ModuleGlobal", "initialized", kMissing,
        "initialized: missing");
    row("device name null", "DeviceInfo", "name", kNull, "name: expected a string, got null");
    row("device warp size missing", "DeviceInfo", "warpSize", kMissing, "warpSize: missing");
    row("device sm count negative", "DeviceInfo", "smCount", QJsonValue(-1),
        "smCount: must be >= 0 (got -1)");
    row("device grid dim a string", "DeviceInfo", "maxGridDim.2", QJsonValue("65535"),
        "maxGridDim[2]: expected a whole number, got a string");
    row("jit used a string", "JitLog", "used", QJsonValue("yes"),
        "used: expected a boolean, got a string");
    row("jit failure missing", "JitLog", "failure", kMissing, "failure: missing");
    row("timing samples missing", "TimingStats", "timesMs", kMissing, "timesMs: missing");
    row("timing median a string", "TimingStats", "medianMs", QJsonValue("0.02"),
        "medianMs: expected a number or null, got a string");
    row("timing reused beyond int", "TimingStats", "buffersReused", kTwoTo31,
        "buffersReused: must be at most 2147483647 (got 2147483648)");
    row("timing uploads negative", "TimingStats", "uploadBytesSkipped", QJsonValue(-1),
        "uploadBytesSkipped: must be >= 0 (got -1)");
    row("resources registers null", "KernelResources", "registers", kNull,
        "registers: expected a whole number, got null");
    row("resources occupancy missing", "KernelResources", "occupancy", kMissing,
        "occupancy: missing");
    row("pipeline launches 2^53", "PipelineTiming", "launches", kTwoTo53,
        "launches: 9007199254740992 is beyond 2^53 - 1");
    row("pipeline graph null", "PipelineTiming", "graph", kNull,
        "graph: expected a boolean, got null");
    row("pipeline step kernel missing", "PipelineTiming", "steps.0.kernel", kMissing,
        "steps[0].kernel: missing");
    row("pipeline sequence median a string", "PipelineTiming", "sequence.medianMs", QJsonValue("x"),
        "sequence.medianMs: expected a number or null, got a string");
    row("verification passed null", "BufferVerification", "passed", kNull,
        "passed: expected a boolean, got null");
    row("verification mismatch got a string", "BufferVerification", "firstMismatches.0.got",
        QJsonValue("2.5"), "firstMismatches[0].got: expected a number or null, got a string");
    row("verification unwritten 2^53", "BufferVerification", "unwritten", kTwoTo53,
        "unwritten: 9007199254740992 is beyond 2^53 - 1");
    row("verification method missing", "BufferVerification", "method", kMissing, "method: missing");
    row("sanitizer thread of two", "SanitizerReport", "thread", QJsonValue(QJsonArray{1, 0}),
        "thread: expected [x, y, z] or null, got 2 elements");
    row("ceiling bytes a string", "CopyCeiling", "bytes", QJsonValue("1073741824"),
        "bytes: expected a whole number, got a string");
    row("ceiling gbs null", "CopyCeiling", "gbs", kNull, "gbs: expected a number, got null");
    row("ceiling copies negative", "CopyCeiling", "copies", QJsonValue(-1),
        "copies: must be >= 0 (got -1)");
    row("ceiling device missing", "CopyCeiling", "deviceName", kMissing, "deviceName: missing");
}

void TestResultJson::malformedFieldsAreNamed() {
    QFETCH(QString, reader);
    QFETCH(QString, path);
    QFETCH(QJsonValue, value);
    QFETCH(QString, message);
    const Reader r = readerNamed(reader);
    const QJsonObject bad = replaced(r.sample(), path.split(QLatin1Char('.')), value).toObject();
    const QString error = r.read(throughText(bad));
    QVERIFY2(!error.isEmpty(), "the malformed field was read");
    QVERIFY2(error.startsWith(message), qPrintable(error));
}

void TestResultJson::nullReadsAsNaNWhereNaNIsWrittenAsNull() {
    // NaN and infinity travel as null in every measured number; they come back as NaN.
    QJsonObject json = fullResult().toJson();
    QJsonObject timing = json.value(QStringLiteral("timing")).toObject();
    timing.insert(QStringLiteral("timesMs"), QJsonArray{0.02, QJsonValue(), 0.025});
    timing.insert(QStringLiteral("medianMs"), QJsonValue());
    json.insert(QStringLiteral("timing"), timing);
    json.insert(QStringLiteral("totalMs"), QJsonValue());
    QString error;
    const std::optional<RunResult> back = RunResult::fromJson(throughText(json), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->timing.timesMs.size(), 3);
    QVERIFY(std::isnan(back->timing.timesMs[1]));
    QVERIFY(std::isnan(back->timing.medianMs));
    QVERIFY(std::isnan(back->totalMs));
    QVERIFY(std::isnan(back->resources.occupancy));
    QVERIFY(std::isnan(back->verification[0].maxRelError));
}

void TestResultJson::optionalPartsStayOptional() {
    // A plain run writes no JIT, pipeline or sanitizer part, no global flag and no ceiling.
    RunResult plain;
    plain.verification = {BufferVerification{}};
    const QJsonObject json = plain.toJson(false);
    for (const char* key : {"jit", "pipeline", "sanitizerTool", "sanitizer"})
        QVERIFY2(!json.contains(QLatin1String(key)), key);
    QString error;
    const std::optional<RunResult> back = RunResult::fromJson(throughText(json), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(!back->jit.used);
    QVERIFY(back->pipeline.isEmpty());
    QCOMPARE(back->sanitizerTool, SanitizerTool::None);
    QVERIFY(!back->verification[0].global);
    QCOMPARE(back->timing.ceilingGBs, 0.0);
    QVERIFY(back->error.isEmpty()); // written as null
    QVERIFY(back->compile.ptx.isEmpty());

    // The full result comes back as it went.
    const RunResult full = fullResult();
    const std::optional<RunResult> fullBack =
        RunResult::fromJson(throughText(full.toJson()), &error);
    QVERIFY2(fullBack, qPrintable(error));
    QCOMPARE(fullBack->toJson(), throughText(full.toJson()));
}

void TestResultJson::resultsWrittenBeforeAFieldExistedStillRead() {
    // The compile cache on disk may hold results written before these fields existed; their
    // documented defaults still apply.
    const CompileResult compile = fullResult().compile;
    QJsonObject old = compile.toJson();
    for (const char* key : {"nvrtcMs", "fromCache", "language", "compiler", "globals"})
        old.remove(QLatin1String(key));
    QJsonArray kernels = old.value(QStringLiteral("kernels")).toArray();
    QJsonObject kernel = kernels.at(0).toObject();
    for (const char* key : {"maxntid", "reqntid", "reqnctapercluster", "explicitCluster"})
        kernel.remove(QLatin1String(key));
    kernels[0] = kernel;
    old.insert(QStringLiteral("kernels"), kernels);
    QString error;
    const std::optional<CompileResult> back = CompileResult::fromJson(throughText(old), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->nvrtcMs, compile.compileMs);
    QCOMPARE(back->fromCache, CompileResult::CacheTier::Memory); // a hit before the tier
    QCOMPARE(back->language, SourceLanguage::Cuda);
    QCOMPARE(back->kernels[0].maxntid, (std::array<int, 3>{0, 0, 0}));
    QVERIFY(!back->kernels[0].explicitCluster);
}

void TestResultJson::ceilingThatIsNotAMeasurementIsRefused() {
    CopyCeiling c = sampleCeiling();
    c.gbs = 0;
    QString error;
    QVERIFY(!CopyCeiling::fromJson(c.toJson(), &error));
    QVERIFY2(error.startsWith(QLatin1String("gbs: ")), qPrintable(error));
}

void TestResultJson::protocolCorpusReads_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("a result with every part") << "result_full.jsonl";
    QTest::newRow("a device list") << "devices_list.jsonl";
    QTest::newRow("a kernel's resources") << "resources.jsonl";
}

void TestResultJson::protocolCorpusReads() {
    // The fuzz target's seeds in the shapes the runner writes today: they must read, or the
    // fuzzer would start from refusals only.
    QFETCH(QString, file);
    QFile f(QStringLiteral(KERNELPAD_SOURCE_DIR "/fuzz/corpus/protocol/") + file);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
    QString error;
    const std::optional<RunnerMessage> m = decodeRunnerMessage(f.readAll(), &error);
    QVERIFY2(m, qPrintable(error));
    const json::FieldReader fields(m->body, &error);
    QJsonObject part;
    if (m->type == MessageType::Result) {
        QVERIFY2(fields.readObject(QStringLiteral("result"), &part, json::Presence::Required),
                 qPrintable(error));
        const std::optional<RunResult> r = RunResult::fromJson(part, &error);
        QVERIFY2(r, qPrintable(error));
        QVERIFY(r->jit.used && !r->pipeline.isEmpty() && !r->sanitizer.isEmpty());
        QVERIFY(std::isnan(r->timing.timesMs[2]));
    } else if (m->type == MessageType::Devices) {
        QVERIFY2(fields.readObjects(
                     QStringLiteral("devices"),
                     [](const json::FieldReader& item) {
                         return DeviceInfo::fromJson(item.object(), item.error(), item.where())
                             .has_value();
                     },
                     json::Presence::Required),
                 qPrintable(error));
    } else {
        QVERIFY2(fields.readObject(QStringLiteral("resources"), &part, json::Presence::Required),
                 qPrintable(error));
        QVERIFY2(KernelResources::fromJson(part, &error), qPrintable(error));
    }
}

KERNELPAD_TEST_GUILESS_MAIN(TestResultJson)
} // namespace tst_resultjson
#include "tst_resultjson.moc"

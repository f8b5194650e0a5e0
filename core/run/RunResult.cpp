#include "core/run/RunResult.h"

#include "core/io/JsonValues.h"

#include <QJsonArray>
#include <QJsonValue>

#include <algorithm>

namespace kernelpad {

using json::nullIfEmpty;
using json::readDouble;
using json::readInt64;
constexpr auto jsonDouble = json::fromDouble;

int RunResult::sanitizerErrorCount() const {
    int reported = 0;
    for (const SanitizerReport& r : sanitizer)
        if (r.severity == Diagnostic::Severity::Error)
            reported += r.count;
    return std::max(reported, sanitizerErrors);
}

bool RunResult::verified() const {
    return std::all_of(verification.cbegin(), verification.cend(),
                       [](const BufferVerification& v) { return v.passed; });
}

QJsonObject RunResult::toJson(bool withPtx) const {
    QJsonArray checks;
    for (const BufferVerification& v : verification)
        checks.append(v.toJson());
    // Output contents travel separately (files or a binary channel): JSON would triple them.
    QJsonArray outs;
    for (const OutputBuffer& o : outputs)
        outs.append(QJsonObject{{QStringLiteral("name"), o.name},
                                {QStringLiteral("type"), o.type.toJson()},
                                {QStringLiteral("count"), double(o.count)}});
    QJsonObject json{{QStringLiteral("status"), runStatusName(status)},
                     {QStringLiteral("error"), nullIfEmpty(error)},
                     {QStringLiteral("compile"), compile.toJson(withPtx)},
                     {QStringLiteral("device"), device.toJson()},
                     {QStringLiteral("kernelLowered"), kernelLowered},
                     {QStringLiteral("launch"), launch.toJson()},
                     {QStringLiteral("resources"), resources.toJson()},
                     {QStringLiteral("timing"), timing.toJson()},
                     {QStringLiteral("verification"), checks},
                     {QStringLiteral("outputs"), outs},
                     {QStringLiteral("totalMs"), jsonDouble(totalMs)}};
    json.insert(QStringLiteral("stdout"), console.text);
    json.insert(QStringLiteral("stdoutBytes"), double(console.totalBytes));
    json.insert(QStringLiteral("stdoutLaterBytes"), double(console.laterBytes));
    if (faultCode != 0)
        json.insert(QStringLiteral("faultCode"), faultCode);
    if (jit.used)
        json.insert(QStringLiteral("jit"), jit.toJson());
    if (!pipeline.isEmpty())
        json.insert(QStringLiteral("pipeline"), pipeline.toJson());
    if (sanitizerTool != SanitizerTool::None) {
        QJsonArray reports;
        for (const SanitizerReport& r : sanitizer)
            reports.append(r.toJson());
        json.insert(QStringLiteral("sanitizerTool"), sanitizerToolName(sanitizerTool));
        json.insert(QStringLiteral("sanitizer"), reports);
        json.insert(QStringLiteral("sanitizerErrors"), sanitizerErrors);
        json.insert(QStringLiteral("sanitizerNote"), nullIfEmpty(sanitizerNote));
    }
    return json;
}

RunResult RunResult::fromJson(const QJsonObject& json) {
    RunResult r;
    // An unknown status is not "ok": a newer runner's failure must not read as success.
    r.status = runStatusFromName(json.value(QStringLiteral("status")).toString())
                   .value_or(RunStatus::BadInput);
    r.error = json.value(QStringLiteral("error")).toString();
    if (r.error.isEmpty() && !runStatusFromName(json.value(QStringLiteral("status")).toString()))
        r.error = QStringLiteral("unknown run status '%1'")
                      .arg(json.value(QStringLiteral("status")).toString());
    r.faultCode = json.value(QStringLiteral("faultCode")).toInt(0);
    r.compile = CompileResult::fromJson(json.value(QStringLiteral("compile")).toObject());
    r.device = DeviceInfo::fromJson(json.value(QStringLiteral("device")).toObject());
    r.kernelLowered = json.value(QStringLiteral("kernelLowered")).toString();
    if (auto launch =
            LaunchConfig::fromJson(json.value(QStringLiteral("launch")).toObject(), nullptr))
        r.launch = *launch;
    r.resources = KernelResources::fromJson(json.value(QStringLiteral("resources")).toObject());
    r.timing = TimingStats::fromJson(json.value(QStringLiteral("timing")).toObject());
    for (const QJsonValue& item : json.value(QStringLiteral("verification")).toArray())
        r.verification.append(BufferVerification::fromJson(item.toObject()));
    for (const QJsonValue& item : json.value(QStringLiteral("outputs")).toArray()) {
        const QJsonObject o = item.toObject();
        OutputBuffer out;
        out.name = o.value(QStringLiteral("name")).toString();
        if (auto type = ValueType::fromJson(o.value(QStringLiteral("type")).toObject(), nullptr))
            out.type = *type;
        out.count = readInt64(o, QStringLiteral("count"));
        r.outputs.append(out);
    }
    r.totalMs = readDouble(json, QStringLiteral("totalMs"));
    r.sanitizerTool =
        sanitizerToolFromName(
            json.value(QStringLiteral("sanitizerTool")).toString(QStringLiteral("none")))
            .value_or(SanitizerTool::None);
    const QJsonArray reports = json.value(QStringLiteral("sanitizer")).toArray();
    for (int k = 0; k < reports.size(); ++k) {
        QString why;
        if (std::optional<SanitizerReport> report =
                SanitizerReport::fromJson(reports[k].toObject(), &why))
            r.sanitizer.append(*report);
        else if (r.error.isEmpty())
            // A report the runner sent but this side cannot read must not vanish silently.
            r.error = QStringLiteral("sanitizer[%1].%2").arg(k).arg(why);
    }
    r.sanitizerErrors = json.value(QStringLiteral("sanitizerErrors")).toInt(0);
    r.sanitizerNote = json.value(QStringLiteral("sanitizerNote")).toString();
    r.console.text = json.value(QStringLiteral("stdout")).toString().left(int(kMaxConsoleBytes));
    r.console.totalBytes =
        std::max(readInt64(json, QStringLiteral("stdoutBytes")), qint64(r.console.text.size()));
    r.console.laterBytes = std::max<qint64>(0, readInt64(json, QStringLiteral("stdoutLaterBytes")));
    r.jit = JitLog::fromJson(json.value(QStringLiteral("jit")).toObject());
    r.pipeline = PipelineTiming::fromJson(json.value(QStringLiteral("pipeline")).toObject());
    return r;
}

} // namespace kernelpad

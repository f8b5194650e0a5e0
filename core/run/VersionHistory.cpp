#include "core/run/VersionHistory.h"

#include "core/io/JsonFields.h"
#include "core/io/SafeFile.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>

#include <algorithm>

namespace kernelpad {

QString versionVerdictName(VersionVerdict verdict) {
    switch (verdict) {
    case VersionVerdict::Passed:
        return QStringLiteral("passed");
    case VersionVerdict::Failed:
        return QStringLiteral("failed");
    case VersionVerdict::Fault:
        return QStringLiteral("fault");
    case VersionVerdict::Error:
        return QStringLiteral("error");
    case VersionVerdict::Cancelled:
        return QStringLiteral("cancelled");
    }
    return {};
}

Version Version::fromRun(int number, const QDateTime& finishedAt, const Project& project,
                         const RunResult& result, const QString& changes, bool profiled) {
    Version v;
    v.number = number;
    v.finishedAt = finishedAt;
    v.project = project;
    v.changes = changes;
    v.status = result.status;
    v.error = result.error;
    v.faultCode = result.faultCode;
    v.buffersChecked = int(result.verification.size());
    v.buffersFailed = int(std::count_if(result.verification.cbegin(), result.verification.cend(),
                                        [](const BufferVerification& b) { return !b.passed; }));
    v.timing = result.timing;
    if (v.timing.timesMs.size() > kMaxKeptSamples)
        v.timing.timesMs.resize(kMaxKeptSamples);
    v.device = result.device.name;
    v.sanitizer = result.sanitizerTool;
    v.sanitizerErrors = result.sanitizerErrorCount();
    v.profiled = profiled;
    if (result.status == RunStatus::Ok && result.resources.registers > 0)
        v.resources = result.resources;
    if (result.baseline.measured()) {
        v.baselineLibrary = result.baseline.library;
        v.baselineMedianMs = result.baseline.timing.medianMs;
    }
    return v;
}

VersionVerdict Version::verdict() const {
    if (faultCode != 0)
        return VersionVerdict::Fault;
    switch (status) {
    case RunStatus::Ok:
        return buffersFailed > 0 ? VersionVerdict::Failed : VersionVerdict::Passed;
    case RunStatus::VerificationFailed:
        return VersionVerdict::Failed;
    case RunStatus::Cancelled:
        return VersionVerdict::Cancelled;
    case RunStatus::CompileError:
    case RunStatus::CudaError:
    case RunStatus::DriverUnavailable:
    case RunStatus::BadInput:
    case RunStatus::Timeout:
        return VersionVerdict::Error;
    }
    return VersionVerdict::Error;
}

QJsonObject Version::toJson() const {
    QJsonObject json{{QStringLiteral("number"), number},
                     {QStringLiteral("finishedAt"), finishedAt.toString(Qt::ISODateWithMs)},
                     {QStringLiteral("project"), project.toJson()},
                     {QStringLiteral("status"), runStatusName(status)},
                     {QStringLiteral("buffersChecked"), buffersChecked},
                     {QStringLiteral("buffersFailed"), buffersFailed},
                     {QStringLiteral("timing"), timing.toJson()}};
    if (!changes.isEmpty())
        json.insert(QStringLiteral("changes"), changes);
    if (!error.isEmpty())
        json.insert(QStringLiteral("error"), error);
    if (faultCode != 0)
        json.insert(QStringLiteral("faultCode"), faultCode);
    if (!device.isEmpty())
        json.insert(QStringLiteral("device"), device);
    if (sanitizer != SanitizerTool::None) {
        json.insert(QStringLiteral("sanitizer"), sanitizerToolName(sanitizer));
        json.insert(QStringLiteral("sanitizerErrors"), sanitizerErrors);
    }
    if (profiled)
        json.insert(QStringLiteral("profiled"), true);
    if (kept)
        json.insert(QStringLiteral("kept"), true);
    if (resources)
        json.insert(QStringLiteral("resources"), resources->toJson());
    if (sassOpcodes) {
        QJsonObject counts;
        for (auto it = sassOpcodes->cbegin(); it != sassOpcodes->cend(); ++it)
            counts.insert(it.key(), it.value());
        json.insert(QStringLiteral("sassOpcodes"), counts);
    }
    if (baselineMedianMs > 0)
        json.insert(QStringLiteral("baseline"),
                    QJsonObject{{QStringLiteral("library"), baselineLibrary},
                                {QStringLiteral("medianMs"), baselineMedianMs},
                                {QStringLiteral("ratio"), baselineRatio()}});
    return json;
}

namespace {

/// The "baseline" object of a version, when there is one ("ratio" is derived, not read).
bool readVersionBaseline(const json::FieldReader& fields, Version* v) {
    QJsonObject baseline;
    if (!fields.readObject(QStringLiteral("baseline"), &baseline, json::Presence::Optional))
        return false;
    if (baseline.isEmpty())
        return true;
    const json::FieldReader inner(baseline, fields.error(),
                                  fields.path(QStringLiteral("baseline")));
    return inner.readString(QStringLiteral("library"), &v->baselineLibrary,
                            json::Presence::Required) &&
           inner.readNumber(QStringLiteral("medianMs"), &v->baselineMedianMs,
                            json::Presence::Required);
}

/// The "resources" object of a version, when there is one.
bool readVersionResources(const json::FieldReader& fields, Version* v, QString* error) {
    QJsonObject resources;
    if (!fields.readObject(QStringLiteral("resources"), &resources, json::Presence::Optional))
        return false;
    if (resources.isEmpty())
        return true;
    v->resources =
        KernelResources::fromJson(resources, error, fields.path(QStringLiteral("resources")));
    return v->resources.has_value();
}

/// The "sassOpcodes" object of a version, when there is one: opcode -> count.
bool readVersionSassOpcodes(const json::FieldReader& fields, Version* v) {
    const QString key = QStringLiteral("sassOpcodes");
    if (!fields.has(key))
        return true;
    QJsonObject counts;
    if (!fields.readObject(key, &counts, json::Presence::Required))
        return false;
    const json::FieldReader inner(counts, fields.error(), fields.path(key));
    QMap<QString, int> read;
    for (auto it = counts.constBegin(); it != counts.constEnd(); ++it) {
        int count = 0;
        // An opcode counted in one kernel: at least once, at most as many as a CUBIN holds.
        if (!inner.readInt(it.key(), &count, json::Presence::Required, {1, 1 << 30}))
            return false;
        read.insert(it.key(), count);
    }
    v->sassOpcodes = read;
    return true;
}

} // namespace

std::optional<Version> Version::fromJson(const QJsonObject& object, QString* error) {
    json::FieldReader fields(object, error);
    Version v;
    QString finished;
    QString status;
    QString sanitizer = QStringLiteral("none");
    QJsonObject project;
    QJsonObject timing;
    if (!fields.readInt(QStringLiteral("number"), &v.number, json::Presence::Required,
                        {1, 1 << 30}) ||
        !fields.readString(QStringLiteral("finishedAt"), &finished, json::Presence::Required) ||
        !fields.readObject(QStringLiteral("project"), &project, json::Presence::Required) ||
        !fields.readChoice(QStringLiteral("status"), runStatusNames(), &status,
                           json::Presence::Required) ||
        !fields.readInt(QStringLiteral("buffersChecked"), &v.buffersChecked,
                        json::Presence::Optional, {0, 1 << 20}) ||
        !fields.readInt(QStringLiteral("buffersFailed"), &v.buffersFailed, json::Presence::Optional,
                        {0, 1 << 20}) ||
        !fields.readObject(QStringLiteral("timing"), &timing, json::Presence::Required) ||
        !fields.readString(QStringLiteral("changes"), &v.changes) ||
        !fields.readString(QStringLiteral("error"), &v.error) ||
        !fields.readInt(QStringLiteral("faultCode"), &v.faultCode) ||
        !fields.readString(QStringLiteral("device"), &v.device) ||
        !fields.readString(QStringLiteral("sanitizer"), &sanitizer) ||
        !fields.readInt(QStringLiteral("sanitizerErrors"), &v.sanitizerErrors) ||
        !fields.readBool(QStringLiteral("profiled"), &v.profiled) ||
        !fields.readBool(QStringLiteral("kept"), &v.kept) || !readVersionBaseline(fields, &v) ||
        !readVersionResources(fields, &v, error) || !readVersionSassOpcodes(fields, &v))
        return std::nullopt;
    v.finishedAt = QDateTime::fromString(finished, Qt::ISODateWithMs);
    if (!v.finishedAt.isValid()) {
        if (error)
            *error = QStringLiteral("%1: not a date and time ('%2')")
                         .arg(fields.path(QStringLiteral("finishedAt")), finished);
        return std::nullopt;
    }
    v.status = *runStatusFromName(status);
    const std::optional<SanitizerTool> tool = sanitizerToolFromName(sanitizer);
    if (!tool) {
        if (error)
            *error = json::choiceError(fields.path(QStringLiteral("sanitizer")),
                                       {QStringLiteral("memcheck"), QStringLiteral("racecheck"),
                                        QStringLiteral("initcheck")},
                                       sanitizer);
        return std::nullopt;
    }
    v.sanitizer = *tool;
    QString message;
    std::optional<Project> read = Project::fromJson(project, &message);
    if (!read) {
        if (error)
            *error = QStringLiteral("project.%1").arg(message);
        return std::nullopt;
    }
    v.project = std::move(*read);
    std::optional<TimingStats> stats =
        TimingStats::fromJson(timing, error, fields.path(QStringLiteral("timing")));
    if (!stats)
        return std::nullopt;
    v.timing = std::move(*stats);
    return v;
}

VersionStore::VersionStore(const QString& projectPath, const QString& dataDir) {
    if (projectPath.isEmpty())
        return;
    const QFileInfo info(projectPath);
    // A project saved under another name is another file; a link reaches the same one.
    const QString canonical =
        info.canonicalFilePath().isEmpty() ? info.absoluteFilePath() : info.canonicalFilePath();
    const QString root = dataDir.isEmpty()
                             ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                             : dataDir;
    if (root.isEmpty())
        return;
    const QByteArray hash =
        QCryptographicHash::hash(canonical.toUtf8(), QCryptographicHash::Sha256).toHex();
    m_file = QDir(root).filePath(QStringLiteral("versions/%1.json").arg(QString::fromLatin1(hash)));
}

QVector<Version> VersionStore::load(QString* error) const {
    if (m_file.isEmpty())
        return {};
    QString message;
    ReadFailure failure = ReadFailure::None;
    const std::optional<QByteArray> bytes =
        readRegularFile(m_file, ReadLimits{kMaxFileBytes, false}, &message, &failure);
    const auto fail = [&](const QString& why) {
        if (error)
            *error = QStringLiteral("Versions file %1 ignored: %2").arg(m_file, why);
        return QVector<Version>();
    };
    if (!bytes)
        return failure == ReadFailure::Missing ? QVector<Version>() : fail(message);
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(*bytes, &parse);
    if (parse.error != QJsonParseError::NoError)
        return fail(
            QStringLiteral("not JSON (%1 at byte %2)").arg(parse.errorString()).arg(parse.offset));
    if (!doc.isObject())
        return fail(QStringLiteral("expected an object"));
    json::FieldReader fields(doc.object(), &message);
    int format = 0;
    if (!fields.readInt(QStringLiteral("version"), &format, json::Presence::Required))
        return fail(message);
    if (format != kFormatVersion)
        return fail(QStringLiteral("version: expected %1, got %2").arg(kFormatVersion).arg(format));
    QVector<Version> versions;
    const bool ok = fields.readObjects(
        QStringLiteral("versions"),
        [&](const json::FieldReader& item) {
            QString itemError;
            std::optional<Version> v = Version::fromJson(item.object(), &itemError);
            if (!v) {
                message = QStringLiteral("%1.%2").arg(item.where(), itemError);
                return false;
            }
            versions.append(std::move(*v));
            return true;
        },
        json::Presence::Required);
    if (!ok)
        return fail(message);
    return versions;
}

bool VersionStore::save(const QVector<Version>& versions, QString* error) const {
    if (m_file.isEmpty())
        return true;
    if (!QDir().mkpath(QFileInfo(m_file).absolutePath())) {
        if (error)
            *error = QStringLiteral("Could not create the folder %1")
                         .arg(QFileInfo(m_file).absolutePath());
        return false;
    }
    // Newest kept: from the end back, while the count and the size allow.
    QVector<QByteArray> items;
    qint64 bytes = 64; // the envelope
    for (auto it = versions.crbegin(); it != versions.crend() && items.size() < kMaxVersions;
         ++it) {
        QByteArray item = QJsonDocument(it->toJson()).toJson(QJsonDocument::Compact);
        if (bytes + item.size() + 1 > kMaxFileBytes)
            break;
        bytes += item.size() + 1;
        items.prepend(std::move(item));
    }
    QByteArray out = QByteArrayLiteral("{\"version\":") + QByteArray::number(kFormatVersion) +
                     QByteArrayLiteral(",\"versions\":[\n");
    for (int i = 0; i < items.size(); ++i) {
        out += items.at(i);
        out += i + 1 < items.size() ? QByteArrayLiteral(",\n") : QByteArrayLiteral("\n");
    }
    out += QByteArrayLiteral("]}\n");
    return writeFileAtomically(m_file, out, error);
}

bool VersionStore::clear(QString* error) const {
    if (m_file.isEmpty() || !QFileInfo::exists(m_file))
        return true;
    QFile file(m_file);
    if (file.remove())
        return true;
    if (error)
        *error = QStringLiteral("Could not remove %1: %2").arg(m_file, file.errorString());
    return false;
}

} // namespace kernelpad

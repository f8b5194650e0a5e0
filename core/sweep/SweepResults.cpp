#include "core/sweep/SweepResults.h"

#include "core/io/ErrorOut.h"
#include "core/io/JsonFields.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

#include <sys/stat.h>

namespace kernelpad {

namespace {

QJsonValue numberOrNull(double value) {
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString csvNumber(double value) {
    return std::isfinite(value) ? QString::number(value, 'g', 10) : QString();
}

} // namespace

double SweepRecord::score(SweepObjective objective) const {
    if (!passed())
        return std::nan("");
    switch (objective) {
    case SweepObjective::Time:
        return medianMs;
    case SweepObjective::Bandwidth:
        return -bandwidthGBs;
    case SweepObjective::Baseline:
        return -baselineRatio;
    case SweepObjective::Energy:
        return energyJ;
    case SweepObjective::Edp: // joule-seconds: lower is better, as for its two factors
        return energyJ * medianMs / 1000.0;
    }
    return medianMs;
}

QJsonObject SweepRecord::toJson() const {
    QJsonObject parameters;
    for (qsizetype i = 0; i < names.size() && i < values.size(); ++i)
        parameters.insert(names[i], values[i]);
    QJsonObject json{{QStringLiteral("key"), key},
                     {QStringLiteral("parameters"), parameters},
                     {QStringLiteral("status"), status},
                     {QStringLiteral("medianMs"), numberOrNull(medianMs)},
                     {QStringLiteral("minMs"), numberOrNull(minMs)},
                     {QStringLiteral("gbps"), numberOrNull(bandwidthGBs)},
                     {QStringLiteral("device"), device}};
    // Absent rather than null when unknown: files written before the field read the same.
    if (std::isfinite(ceilingGBs) && ceilingGBs > 0)
        json.insert(QStringLiteral("ceilingGBs"), ceilingGBs);
    if (std::isfinite(baselineRatio) && baselineRatio > 0)
        json.insert(QStringLiteral("baselineRatio"), baselineRatio);
    if (std::isfinite(energyJ) && energyJ > 0)
        json.insert(QStringLiteral("energyJ"), energyJ);
    if (std::isfinite(wallMs) && wallMs >= 0)
        json.insert(QStringLiteral("wallMs"), wallMs);
    if (!error.isEmpty())
        json.insert(QStringLiteral("error"), error);
    json.insert(QStringLiteral("timingBudget"), timingBudget);
    if (isRetimed()) {
        json.insert(QStringLiteral("accurateMedianMs"), accurateMedianMs);
        json.insert(QStringLiteral("accurateMinMs"), numberOrNull(accurateMinMs));
    }
    if (!accurateError.isEmpty())
        json.insert(QStringLiteral("accurateError"), accurateError);
    if (confirmation)
        json.insert(QStringLiteral("confirmation"), confirmation->toJson());
    // The order of the parameters, which a JSON object does not keep.
    json.insert(QStringLiteral("names"), QJsonArray::fromStringList(names));
    return json;
}

std::optional<SweepRecord> SweepRecord::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    SweepRecord record;
    QJsonObject parameters;
    if (!fields.readString(QStringLiteral("key"), &record.key, json::Presence::Required) ||
        !fields.readStrings(QStringLiteral("names"), &record.names, json::Presence::Required) ||
        !fields.readObject(QStringLiteral("parameters"), &parameters, json::Presence::Required) ||
        !fields.readString(QStringLiteral("status"), &record.status, json::Presence::Required) ||
        !fields.readString(QStringLiteral("error"), &record.error) ||
        !fields.readString(QStringLiteral("device"), &record.device) ||
        !fields.readNumber(QStringLiteral("medianMs"), &record.medianMs, json::Presence::Optional,
                           json::NullNumber::IsNaN) ||
        !fields.readNumber(QStringLiteral("minMs"), &record.minMs, json::Presence::Optional,
                           json::NullNumber::IsNaN) ||
        !fields.readNumber(QStringLiteral("gbps"), &record.bandwidthGBs, json::Presence::Optional,
                           json::NullNumber::IsNaN) ||
        !fields.readNumber(QStringLiteral("ceilingGBs"), &record.ceilingGBs,
                           json::Presence::Optional, json::NullNumber::IsNaN) ||
        !fields.readNumber(QStringLiteral("baselineRatio"), &record.baselineRatio,
                           json::Presence::Optional, json::NullNumber::IsNaN) ||
        !fields.readNumber(QStringLiteral("energyJ"), &record.energyJ, json::Presence::Optional,
                           json::NullNumber::IsNaN) ||
        !fields.readNumber(QStringLiteral("wallMs"), &record.wallMs, json::Presence::Optional,
                           json::NullNumber::IsNaN) ||
        !fields.readString(QStringLiteral("timingBudget"), &record.timingBudget) ||
        !fields.readNumber(QStringLiteral("accurateMedianMs"), &record.accurateMedianMs,
                           json::Presence::Optional, json::NullNumber::IsNaN) ||
        !fields.readNumber(QStringLiteral("accurateMinMs"), &record.accurateMinMs,
                           json::Presence::Optional, json::NullNumber::IsNaN) ||
        !fields.readString(QStringLiteral("accurateError"), &record.accurateError))
        return std::nullopt;
    QJsonObject confirmation;
    if (!fields.readObject(QStringLiteral("confirmation"), &confirmation))
        return std::nullopt;
    if (fields.has(QStringLiteral("confirmation"))) {
        record.confirmation = SweepConfirmation::fromJson(
            confirmation, fields.path(QStringLiteral("confirmation")), error);
        if (!record.confirmation)
            return std::nullopt;
    }
    const json::FieldReader parameterFields =
        fields.nested(QStringLiteral("parameters"), parameters);
    for (const QString& name : record.names) {
        double value = 0;
        if (!parameterFields.readNumber(name, &value, json::Presence::Required))
            return std::nullopt;
        record.values.append(value);
    }
    return record;
}

QVector<SweepRecord> sortedRecords(QVector<SweepRecord> records, SweepObjective objective) {
    std::stable_sort(records.begin(), records.end(),
                     [objective](const SweepRecord& a, const SweepRecord& b) {
                         const double sa = a.score(objective), sb = b.score(objective);
                         if (std::isnan(sa) || std::isnan(sb))
                             return !std::isnan(sa) && std::isnan(sb);
                         return sa != sb ? sa < sb : a.key < b.key;
                     });
    return records;
}

// Equal scores are told apart by key, not by arrival: a resumed sweep, whose records come in
// the space's order, names the same best as the run that recorded them (and finds it re-timed).
std::optional<SweepRecord> bestRecord(const QVector<SweepRecord>& records,
                                      SweepObjective objective) {
    std::optional<SweepRecord> best;
    for (const SweepRecord& record : records) {
        const double score = record.score(objective);
        if (std::isnan(score))
            continue;
        const double bestScore = best ? best->score(objective) : score;
        if (!best || score < bestScore || (score == bestScore && record.key < best->key))
            best = record;
    }
    return best;
}

QString recordsToCsv(const QVector<SweepRecord>& records, const QStringList& names) {
    QStringList header;
    for (const QString& name : names)
        header.append(csvField(name));
    header << QStringLiteral("status") << QStringLiteral("median_ms") << QStringLiteral("min_ms")
           << QStringLiteral("gbps") << QStringLiteral("ceiling_gbps") << QStringLiteral("device")
           << QStringLiteral("error") << QStringLiteral("timing_budget")
           << QStringLiteral("accurate_median_ms");
    QString out = header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (const SweepRecord& record : records) {
        QStringList row;
        for (const QString& name : names) {
            const qsizetype i = record.names.indexOf(name);
            row.append(i >= 0 && i < record.values.size() ? csvNumber(record.values[i])
                                                          : QString());
        }
        row << csvField(record.status) << csvNumber(record.medianMs) << csvNumber(record.minMs)
            << csvNumber(record.bandwidthGBs) << csvNumber(record.ceilingGBs)
            << csvField(record.device) << csvField(record.error) << csvField(record.timingBudget)
            << csvNumber(record.accurateMedianMs);
        out += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

QJsonArray recordsToJson(const QVector<SweepRecord>& records) {
    QJsonArray array;
    for (const SweepRecord& record : records)
        array.append(record.toJson());
    return array;
}

namespace {

const QByteArray kHeaderTag = QByteArrayLiteral("sweep-results");
/// Written after a line cut short, on a line of its own, when the next record is appended:
/// the one line that may not parse is the one the mark names, so any other bad line is still
/// an error.
const QByteArray kCutShortMark = QByteArrayLiteral("{\"kernelpad\":\"line-above-cut-short\"}");

QByteArray headerLine() {
    const QJsonObject header{{QStringLiteral("kernelpad"), QString::fromLatin1(kHeaderTag)},
                             {QStringLiteral("version"), kSweepResultsVersion}};
    return QJsonDocument(header).toJson(QJsonDocument::Compact) + '\n';
}

QString lineError(const QString& shown, qsizetype line, const QString& why) {
    return QStringLiteral("results file '%1', line %2: %3").arg(shown).arg(line).arg(why);
}

/// Empty when `line` is this version's header, else why it is not.
QString headerProblem(const QByteArray& line) {
    const QString notOurs =
        QStringLiteral("not a KernelPad sweep results file (its first line is not the header "
                       "{\"kernelpad\":\"sweep-results\",...}); it is neither read nor written");
    const QJsonDocument document = QJsonDocument::fromJson(line);
    if (!document.isObject())
        return notOurs;
    const QJsonObject header = document.object();
    if (header.value(QStringLiteral("kernelpad")).toString() != QLatin1String(kHeaderTag))
        return notOurs;
    const QJsonValue version = header.value(QStringLiteral("version"));
    if (!version.isDouble() || version.toDouble() < 1 ||
        version.toDouble() != std::floor(version.toDouble()))
        return QStringLiteral("the header's version must be a whole number from 1");
    if (version.toDouble() > kSweepResultsVersion)
        return QStringLiteral("written by a newer KernelPad (format version %1; this one reads %2)")
            .arg(version.toDouble())
            .arg(kSweepResultsVersion);
    return {};
}

} // namespace

std::optional<QVector<SweepRecord>> parseSweepResults(const QByteArray& data, const QString& shown,
                                                      QString* error) {
    QList<QByteArray> lines = data.split('\n');
    // The last element is what follows the last newline: empty, or a line cut short.
    lines.removeLast();
    if (lines.isEmpty() || !headerProblem(lines.first()).isEmpty()) {
        fail(error, lineError(shown, 1,
                              lines.isEmpty() ? headerProblem({}) : headerProblem(lines.first())));
        return std::nullopt;
    }
    QVector<SweepRecord> records;
    QHash<QString, qsizetype> byKey; ///< where each key's record is in `records`
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const bool markedCutShort = i + 1 < lines.size() && lines[i + 1].trimmed() == kCutShortMark;
        if (line.isEmpty() || line == kCutShortMark || markedCutShort)
            continue;
        if (records.size() >= kSweepResultsMaxRecords) {
            fail(error, lineError(shown, i + 1,
                                  QStringLiteral("more than %1 records, more than a sweep holds")
                                      .arg(kSweepResultsMaxRecords)));
            return std::nullopt;
        }
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(line, &parseError);
        if (!document.isObject()) {
            fail(error, lineError(shown, i + 1,
                                  QStringLiteral("not a JSON object (%1)")
                                      .arg(parseError.error == QJsonParseError::NoError
                                               ? QStringLiteral("an array")
                                               : parseError.errorString())));
            return std::nullopt;
        }
        QString why;
        std::optional<SweepRecord> record = SweepRecord::fromJson(document.object(), &why);
        if (!record) {
            fail(error, lineError(shown, i + 1, why));
            return std::nullopt;
        }
        if (const auto it = byKey.constFind(record->key); it != byKey.constEnd()) {
            records[it.value()] = std::move(*record);
            continue;
        }
        byKey.insert(record->key, records.size());
        records.append(std::move(*record));
    }
    return records;
}

std::optional<QVector<SweepRecord>> readSweepResults(const QString& path, QString* error) {
    QString why;
    const std::optional<QByteArray> data =
        readRegularFile(path, ReadLimits{kSweepResultsMaxBytes, false}, &why);
    if (!data) {
        fail(error, QStringLiteral("results file ") + why);
        return std::nullopt;
    }
    return parseSweepResults(*data, QDir::toNativeSeparators(path), error);
}

std::optional<double> recordsCeilingGBs(const QVector<SweepRecord>& records) {
    std::optional<double> ceiling;
    for (const SweepRecord& record : records)
        if (std::isfinite(record.ceilingGBs) && record.ceilingGBs > 0 &&
            (!ceiling || record.ceilingGBs > *ceiling))
            ceiling = record.ceilingGBs;
    return ceiling;
}

bool SweepResultsFile::open(const QString& path, QString* error) {
    m_existing.clear();
    m_fd = UniqueFd();
    m_path = path;
    m_sizeBytes = 0;
    m_endsCutShort = false;
    QString why;
    std::optional<AppendFile> file = openAppendOnly(path, true, &why);
    if (!file)
        return fail(error, QStringLiteral("results file ") + why);
    if (file->created) {
        m_fd = std::move(file->fd);
        return write(headerLine(), error);
    }
    std::optional<QByteArray> data =
        readRegularFile(path, ReadLimits{kSweepResultsMaxBytes, false}, &why);
    if (!data)
        return fail(error, QStringLiteral("results file ") + why);
    // What was read must be the file opened: a rename between the two opens is refused.
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0 || st.st_dev != file->device ||
        st.st_ino != file->inode)
        return fail(error, QStringLiteral("results file '%1' was replaced while it was opened")
                               .arg(QDir::toNativeSeparators(path)));
    std::optional<QVector<SweepRecord>> records =
        parseSweepResults(*data, QDir::toNativeSeparators(path), error);
    if (!records)
        return false;
    m_existing = std::move(*records);
    m_fd = std::move(file->fd);
    m_sizeBytes = data->size();
    m_endsCutShort = !data->endsWith('\n');
    return true;
}

bool SweepResultsFile::append(const SweepRecord& record, QString* error) {
    QByteArray bytes;
    if (m_endsCutShort)
        bytes = '\n' + kCutShortMark + '\n';
    bytes += QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact) + '\n';
    if (!write(bytes, error))
        return false;
    m_endsCutShort = false;
    return true;
}

bool SweepResultsFile::write(const QByteArray& bytes, QString* error) {
    const QString shown = QDir::toNativeSeparators(m_path);
    if (!m_fd.isValid())
        return fail(error, QStringLiteral("results file '%1': not open").arg(shown));
    if (m_sizeBytes + bytes.size() > kSweepResultsMaxBytes)
        return fail(error, QStringLiteral("results file '%1' reached the %2 bytes a results "
                                          "file may hold; start the sweep over or narrow it")
                               .arg(shown)
                               .arg(kSweepResultsMaxBytes));
    QString why;
    // One write() of the whole line: O_APPEND puts it at the end in one piece.
    if (!writeAllTo(m_fd.get(), bytes, &why))
        return fail(error, QStringLiteral("results file '%1': cannot append (%2)").arg(shown, why));
    m_sizeBytes += bytes.size();
    return true;
}

} // namespace kernelpad

#include "core/sweep/SweepResults.h"

#include "core/io/JsonFields.h"

#include <QDir>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

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
    return objective == SweepObjective::Time ? medianMs : -bandwidthGBs;
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
    if (!error.isEmpty())
        json.insert(QStringLiteral("error"), error);
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
                           json::Presence::Optional, json::NullNumber::IsNaN))
        return std::nullopt;
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
                         return sa < sb;
                     });
    return records;
}

std::optional<SweepRecord> bestRecord(const QVector<SweepRecord>& records,
                                      SweepObjective objective) {
    std::optional<SweepRecord> best;
    for (const SweepRecord& record : records) {
        const double score = record.score(objective);
        if (!std::isnan(score) && (!best || score < best->score(objective)))
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
           << QStringLiteral("error");
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
            << csvField(record.device) << csvField(record.error);
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

/// The records of `data`, the contents of the results file `shown`; a last line without its
/// newline (cut short by a kill) is skipped.
std::optional<QVector<SweepRecord>> parseResults(const QByteArray& data, const QString& shown,
                                                 QString* error) {
    QVector<SweepRecord> records;
    const QList<QByteArray> lines = data.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const bool cutShort = i == lines.size() - 1 && !data.endsWith('\n');
        if (line.isEmpty() || cutShort)
            continue;
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(line, &parseError);
        if (!document.isObject()) {
            if (error)
                *error = QStringLiteral("results file '%1', line %2: not a JSON object (%3)")
                             .arg(shown)
                             .arg(i + 1)
                             .arg(parseError.errorString());
            return std::nullopt;
        }
        QString why;
        std::optional<SweepRecord> record = SweepRecord::fromJson(document.object(), &why);
        if (!record) {
            if (error)
                *error =
                    QStringLiteral("results file '%1', line %2: %3").arg(shown).arg(i + 1).arg(why);
            return std::nullopt;
        }
        records.append(std::move(*record));
    }
    return records;
}

} // namespace

std::optional<QVector<SweepRecord>> readSweepResults(const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("results file '%1': cannot read it (%2)")
                         .arg(QDir::toNativeSeparators(path), file.errorString());
        return std::nullopt;
    }
    return parseResults(file.readAll(), QDir::toNativeSeparators(path), error);
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
    const auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    const QString shown = QDir::toNativeSeparators(path);
    m_existing.clear();
    m_file.close();
    m_file.setFileName(path);
    if (m_file.exists()) {
        if (!m_file.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("results file '%1': cannot read it (%2)")
                            .arg(shown, m_file.errorString()));
        const QByteArray data = m_file.readAll();
        m_file.close();
        std::optional<QVector<SweepRecord>> records = parseResults(data, shown, error);
        if (!records)
            return false;
        m_existing = std::move(*records);
        // A line cut short is dropped from the file too, so the next append starts clean.
        if (!data.isEmpty() && !data.endsWith('\n')) {
            const qsizetype keep = data.lastIndexOf('\n') + 1;
            if (!m_file.resize(keep))
                return fail(QStringLiteral("results file '%1': cannot drop its unfinished last "
                                           "line (%2)")
                                .arg(shown, m_file.errorString()));
        }
    }
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Append))
        return fail(QStringLiteral("results file '%1': cannot write it (%2)")
                        .arg(shown, m_file.errorString()));
    return true;
}

bool SweepResultsFile::append(const SweepRecord& record, QString* error) {
    const QByteArray line = QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact) + '\n';
    if (m_file.write(line) != line.size() || !m_file.flush()) {
        if (error)
            *error = QStringLiteral("results file '%1': cannot append (%2)")
                         .arg(QDir::toNativeSeparators(m_file.fileName()), m_file.errorString());
        return false;
    }
    return true;
}

} // namespace kernelpad

// Fuzzes the sweep results file's parser (parseSweepResults): any bytes in, the records of a
// file that starts with the header and reads line by line, or an error naming the line; what
// it accepts, written back as a results file, reads back the same.
#include "core/sweep/SweepResults.h"

#include <QByteArray>
#include <QJsonDocument>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray bytes =
        QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    QString error;
    const std::optional<QVector<SweepRecord>> records =
        parseSweepResults(bytes, QStringLiteral("fuzz.jsonl"), &error);
    if (!records) {
        if (!error.startsWith(QStringLiteral("results file 'fuzz.jsonl', line "))) {
            std::fprintf(stderr, "refused without naming the file and line: %s\n",
                         qPrintable(error));
            std::abort();
        }
        return 0;
    }
    // Accepted: the file had a header line and each record took at least a line of its own.
    if (records->size() >= bytes.count('\n')) {
        std::fprintf(stderr, "%lld records from %lld lines\n",
                     static_cast<long long>(records->size()),
                     static_cast<long long>(bytes.count('\n')));
        std::abort();
    }
    QByteArray again = bytes.left(bytes.indexOf('\n') + 1);
    for (const SweepRecord& record : *records)
        again += QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact) + '\n';
    const std::optional<QVector<SweepRecord>> reread =
        parseSweepResults(again, QStringLiteral("again.jsonl"), &error);
    if (!reread || reread->size() != records->size()) {
        std::fprintf(stderr, "written back, the records do not read the same: %s\n",
                     qPrintable(error));
        std::abort();
    }
    for (qsizetype i = 0; i < records->size(); ++i) {
        if ((*reread)[i].toJson() != (*records)[i].toJson()) {
            std::fprintf(stderr, "record %lld changed when written back\n",
                         static_cast<long long>(i));
            std::abort();
        }
    }
    return 0;
}

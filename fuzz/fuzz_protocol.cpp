// Fuzzes the runner protocol: the bounded line splitter both sides read with, the message
// decoder, for "run" messages the RunRequest reader and for "result" messages the RunResult
// reader (core/io/JsonFields under every field), and the client's codec (RunnerCodec), which
// must read the same events however the bytes are split.
#include "core/run/RunTypes.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerCodec.h"

#include <QByteArray>
#include <QJsonValue>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

namespace {

/// A small limit so that over-long lines are common; the chunk size comes from the input.
constexpr qsizetype kFuzzLineLimit = 256;

/// Feeds the bytes in chunks and checks what the splitter promises: no line longer than the
/// limit, no '\n' inside a line, and, when nothing was refused, the lines and the pending
/// tail put back together are the input.
void checkSplitter(const uint8_t* data, size_t size) {
    if (size == 0)
        return;
    const qsizetype chunk = 1 + data[0] % 97;
    LineSplitter splitter(kFuzzLineLimit);
    QByteArray joined;
    bool refused = false;
    for (qsizetype at = 1; at < qsizetype(size); at += chunk) {
        const qsizetype n = std::min<qsizetype>(chunk, qsizetype(size) - at);
        for (const LineSplitter::Line& line :
             splitter.feed(reinterpret_cast<const char*>(data) + at, n)) {
            if (line.tooLong) {
                refused = true;
                if (!line.bytes.isEmpty()) {
                    std::fprintf(stderr, "a refused line kept its bytes\n");
                    std::abort();
                }
                continue;
            }
            if (line.bytes.size() > kFuzzLineLimit || line.bytes.contains('\n')) {
                std::fprintf(stderr, "a line of %lld bytes passed the splitter\n",
                             qlonglong(line.bytes.size()));
                std::abort();
            }
            joined += line.bytes + '\n';
        }
        if (splitter.pendingBytes() > kFuzzLineLimit) {
            std::fprintf(stderr, "the splitter holds more than its limit\n");
            std::abort();
        }
    }
    const QByteArray input(reinterpret_cast<const char*>(data) + 1, qsizetype(size) - 1);
    if (!refused && !input.startsWith(joined)) {
        std::fprintf(stderr, "the splitter lost or changed bytes\n");
        std::abort();
    }
}

/// What one codec event is, to compare two readings of the same bytes.
QString describeCodecEvent(const RunnerCodec::Event& e) {
    if (e.problem != RunnerCodec::Problem::None) {
        if (e.error.isEmpty()) {
            std::fprintf(stderr, "a codec problem (%d) without a sentence\n", int(e.problem));
            std::abort();
        }
        return QStringLiteral("problem %1 %2").arg(int(e.problem)).arg(e.error);
    }
    if (e.frame)
        return QStringLiteral("frame %1 %2 %3")
            .arg(e.frame->id)
            .arg(e.frame->offset)
            .arg(QString::fromLatin1(e.data.toHex()));
    return QStringLiteral("%1 %2").arg(toString(e.type)).arg(e.id);
}

/// Reads the bytes (after the first) with RunnerCodec whole and split where data[0] says: the
/// events must be the same.
void checkCodec(const uint8_t* data, size_t size) {
    if (size < 2)
        return;
    const char* bytes = reinterpret_cast<const char*>(data) + 1;
    const qsizetype n = qsizetype(size) - 1;
    const qsizetype split = data[0] % (n + 1);
    const auto read = [bytes, n](qsizetype at) {
        RunnerCodec codec;
        codec.setPeer(RunnerSpec::local(), QStringLiteral("kernelpad-cli"), true);
        QStringList events;
        for (const RunnerCodec::Event& e : codec.feed(bytes, at))
            events << describeCodecEvent(e);
        for (const RunnerCodec::Event& e : codec.feed(bytes + at, n - at))
            events << describeCodecEvent(e);
        return events;
    };
    if (read(n) != read(split)) {
        std::fprintf(stderr, "the codec read other events when the bytes were split at %lld\n",
                     qlonglong(split));
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    checkSplitter(data, size);
    checkCodec(data, size);
    const QByteArray line =
        QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    QString error;
    const std::optional<RunnerMessage> message = decodeRunnerMessage(line, &error);
    if (!message) {
        if (error.isEmpty()) {
            std::fprintf(stderr, "decodeRunnerMessage failed without saying why\n");
            std::abort();
        }
        return 0;
    }
    // A decoded message re-encodes to one line that decodes to the same type and id.
    const QByteArray encoded = encodeRunnerMessage(*message);
    QString again;
    const std::optional<RunnerMessage> redecoded = decodeRunnerMessage(encoded, &again);
    if (encoded.count('\n') != 1 || !redecoded || redecoded->type != message->type ||
        redecoded->id != message->id) {
        std::fprintf(stderr, "encode/decode round trip failed: %s\n%s", qPrintable(again),
                     encoded.constData());
        std::abort();
    }
    if (message->type == MessageType::Run) {
        QString requestError;
        const std::optional<RunRequest> request = RunRequest::fromJson(
            message->body.value(QStringLiteral("request")).toObject(), &requestError);
        if (request)
            (void)request->toJson();
    }
    if (message->type == MessageType::Result) {
        // Read as the client reads it: a refusal says why, and what was read writes a JSON
        // form that reads back.
        QString resultError;
        const std::optional<RunResult> result = RunResult::fromJson(
            message->body.value(QStringLiteral("result")).toObject(), &resultError);
        if (!result && resultError.isEmpty()) {
            std::fprintf(stderr, "RunResult::fromJson failed without saying why\n");
            std::abort();
        }
        if (result && !RunResult::fromJson(result->toJson(), &resultError)) {
            std::fprintf(stderr, "a result read did not read back: %s\n", qPrintable(resultError));
            std::abort();
        }
    }
    return 0;
}

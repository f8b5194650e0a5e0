// Fuzzes the runner protocol decoder and, for "run" messages, the RunRequest reader.
#include "core/run/RunTypes.h"
#include "core/runner/Protocol.h"

#include <QByteArray>
#include <QJsonValue>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray line = QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
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
    if (encoded.count('\n') != 1 || !redecoded || redecoded->type != message->type || redecoded->id != message->id) {
        std::fprintf(stderr, "encode/decode round trip failed: %s\n%s", qPrintable(again), encoded.constData());
        std::abort();
    }
    if (message->type == QLatin1String("run")) {
        QString requestError;
        const std::optional<RunRequest> request =
            RunRequest::fromJson(message->body.value(QStringLiteral("request")).toObject(), &requestError);
        if (request)
            (void)request->toJson();
    }
    if (message->type == QLatin1String("result"))
        (void)RunResult::fromJson(message->body.value(QStringLiteral("result")).toObject());
    return 0;
}

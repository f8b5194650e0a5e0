#include "core/runner/RunnerServerStreams.h"

#include "core/runner/StreamFiles.h"

namespace kernelpad::serve {

std::optional<StreamSpec> readStreamSpec(const QJsonObject& body, QString* error) {
    QJsonObject stream;
    const json::FieldReader top(body, error);
    if (!top.readObject(QStringLiteral("stream"), &stream, json::Presence::Required))
        return std::nullopt;
    const json::FieldReader fields = top.nested(QStringLiteral("stream"), stream);
    StreamSpec spec;
    const bool read =
        fields.readObjects(
            QStringLiteral("files"),
            [&spec, &fields](const json::FieldReader& item) {
                QString name;
                qint64 bytes = 0;
                if (!item.readString(QStringLiteral("name"), &name, json::Presence::Required) ||
                    !item.readWholeNumber(QStringLiteral("bytes"), &bytes, json::Presence::Required,
                                          {0, kMaxBufferBytes}))
                    return false;
                if (!isSafeStreamName(name))
                    return item.fail(
                        item.path(QStringLiteral("name")) +
                        QStringLiteral(": '%1' is not a plain relative name").arg(name.left(64)));
                for (const auto& f : spec.files)
                    if (f.first == name)
                        return item.fail(item.path(QStringLiteral("name")) +
                                         QStringLiteral(": '%1' is listed twice").arg(name));
                if (spec.files.size() >= kMaxStreamedFiles)
                    return item.fail(fields.path(QStringLiteral("files")) +
                                     QStringLiteral(": more than %1 files").arg(kMaxStreamedFiles));
                spec.files.push_back({name, bytes});
                return true;
            },
            json::Presence::Required) &&
        fields.readWholeNumber(QStringLiteral("keepBeyondBytes"), &spec.keepBeyondBytes,
                               json::Presence::Optional, {0, kMaxBufferBytes});
    if (!read)
        return std::nullopt;
    return spec;
}

QJsonArray listStreamedOutputs(const QVector<OutputBuffer>& outputs, qint64 keepBeyondBytes) {
    QJsonArray list;
    for (const OutputBuffer& b : outputs) {
        QJsonObject item{{"name", b.name},
                         {"type", b.type.toJson()},
                         {"count", double(b.count)},
                         {"bytes", double(b.data.size())}};
        item.insert(b.data.size() > keepBeyondBytes ? QStringLiteral("kept")
                                                    : QStringLiteral("stream"),
                    true);
        list.append(item);
    }
    return list;
}

void streamOutputs(Output& out, quint64 id, const QVector<OutputBuffer>& outputs,
                   qint64 keepBeyondBytes) {
    for (const OutputBuffer& b : outputs)
        if (b.data.size() <= keepBeyondBytes)
            out.sendFrames(id, b.name, 0, b.data.constData(), b.data.size());
}

void answerFetch(Output& out, const RunnerMessage& m, const KeptOutputs& kept) {
    QString error;
    const json::FieldReader fields(m.body, &error);
    constexpr auto required = json::Presence::Required;
    qint64 run = 0, offset = 0, bytes = 0;
    QString name;
    if (fields.readWholeNumber(QStringLiteral("run"), &run, required,
                               {0, kExactDoubleIntegerLimit - 1}) &&
        fields.readString(QStringLiteral("buffer"), &name, required) &&
        fields.readWholeNumber(QStringLiteral("offset"), &offset, required, {0, kMaxBufferBytes}) &&
        fields.readWholeNumber(QStringLiteral("bytes"), &bytes, required, {0, kMaxBufferBytes})) {
        const OutputBuffer* found = nullptr;
        for (const OutputBuffer& b : kept.buffers)
            if (b.name == name)
                found = &b;
        if (quint64(run) != kept.run || kept.run == 0)
            error = QStringLiteral("run: the outputs of run %1 are no longer on the runner%2")
                        .arg(run)
                        .arg(kept.run ? QStringLiteral(" (run %1 replaced them)").arg(kept.run)
                                      : QString());
        else if (!found)
            error = QStringLiteral("buffer: run %1 has no output '%2'").arg(run).arg(name.left(64));
        else if (offset + bytes > found->data.size())
            error = QStringLiteral("offset: %1 + bytes: %2 runs past the end of '%3' (%4 bytes)")
                        .arg(offset)
                        .arg(bytes)
                        .arg(name)
                        .arg(found->data.size());
        else {
            out.sendFrames(m.id, name, offset, found->data.constData() + offset, bytes);
            return;
        }
    }
    out.send(RunnerMessage::make(MessageType::Error, m.id,
                                 {{"message", QStringLiteral("fetch: %1").arg(error)}}));
}

} // namespace kernelpad::serve

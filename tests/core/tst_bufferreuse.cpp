// The buffer-reuse decision (RunBuffers.h): which of the previous run's buffers a run keeps
// on the device, and which "in" buffers it need not upload again. Host only.

#include "../support/TestMain.h"
#include "core/run/RunBuffers.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace tst_bufferreuse {

using namespace kernelpad;

} // namespace tst_bufferreuse
Q_DECLARE_METATYPE(kernelpad::BufferReuse)
namespace tst_bufferreuse {

namespace {

ArgumentSpec floatBuffer(Direction direction) {
    ArgumentSpec a;
    a.name = QStringLiteral("x");
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.count = QStringLiteral("1024");
    a.buffer.direction = direction;
    a.buffer.init.kind = InitSpec::Kind::Uniform;
    a.buffer.init.seed = 7;
    return a;
}

} // namespace

class TestBufferReuse : public QObject {
    Q_OBJECT

private slots:
    void decision_data() {
        QTest::addColumn<QString>("change");
        QTest::addColumn<int>("direction");
        QTest::addColumn<kernelpad::BufferReuse>("expected");
        const int in = int(Direction::In), out = int(Direction::Out), inout = int(Direction::InOut);
        QTest::newRow("unchanged in: no upload") << "none" << in << BufferReuse::Contents;
        QTest::newRow("unchanged out: re-poisoned") << "none" << out << BufferReuse::Memory;
        QTest::newRow("unchanged inout: re-uploaded") << "none" << inout << BufferReuse::Memory;
        QTest::newRow("new seed: same memory, new contents") << "seed" << in << BufferReuse::Memory;
        QTest::newRow("new init kind") << "kind" << in << BufferReuse::Memory;
        QTest::newRow("more elements: fresh") << "count" << in << BufferReuse::Fresh;
        QTest::newRow("wider type: fresh") << "type" << in << BufferReuse::Fresh;
        QTest::newRow("same bytes, other type: memory")
            << "sameBytesType" << in << BufferReuse::Memory;
        QTest::newRow("was inout, now in: written, re-upload")
            << "wasInout" << in << BufferReuse::Memory;
        QTest::newRow("no previous buffer") << "noPrevious" << in << BufferReuse::Fresh;
    }

    void decision() {
        QFETCH(QString, change);
        QFETCH(int, direction);
        QFETCH(kernelpad::BufferReuse, expected);
        ArgumentSpec before = floatBuffer(Direction(direction));
        ArgumentSpec after = before;
        qint64 countAfter = 1024;
        if (change == QLatin1String("seed"))
            after.buffer.init.seed = 8;
        else if (change == QLatin1String("kind"))
            after.buffer.init.kind = InitSpec::Kind::Ones;
        else if (change == QLatin1String("count"))
            countAfter = 2048;
        else if (change == QLatin1String("type"))
            after.buffer.elementType = ValueType::of(ScalarType::Float64);
        else if (change == QLatin1String("sameBytesType"))
            after.buffer.elementType = ValueType::of(ScalarType::Int32);
        else if (change == QLatin1String("wasInout"))
            before.buffer.direction = Direction::InOut;
        const BufferContentKey previous = bufferContentKey(before, 1024, QString());
        const BufferContentKey next = bufferContentKey(after, countAfter, QString());
        QCOMPARE(decideReuse(change == QLatin1String("noPrevious") ? nullptr : &previous, next),
                 expected);
    }

    void npyFileStampDecides_data() {
        QTest::addColumn<bool>("rewrite");
        QTest::addColumn<bool>("remove");
        QTest::addColumn<kernelpad::BufferReuse>("expected");
        QTest::newRow("untouched file: no upload") << false << false << BufferReuse::Contents;
        QTest::newRow("rewritten file: upload") << true << false << BufferReuse::Memory;
        QTest::newRow("file gone: never trusted") << false << true << BufferReuse::Memory;
    }

    void npyFileStampDecides() {
        QFETCH(bool, rewrite);
        QFETCH(bool, remove);
        QFETCH(kernelpad::BufferReuse, expected);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("x.npy"));
        auto write = [&](const QByteArray& bytes) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            QVERIFY(f.write(bytes) == bytes.size());
        };
        write(QByteArray(100, 'a'));
        if (QTest::currentTestFailed())
            return;
        ArgumentSpec a = floatBuffer(Direction::In);
        a.buffer.init.kind = InitSpec::Kind::File;
        a.buffer.init.path = QStringLiteral("x.npy");
        const BufferContentKey previous = bufferContentKey(a, 1024, dir.path());
        QCOMPARE(previous.fileBytes, qint64(100));
        if (rewrite)
            write(QByteArray(101, 'b')); // size differs even where mtime resolution is coarse
        if (QTest::currentTestFailed())
            return;
        if (remove)
            QVERIFY(QFile::remove(path));
        QCOMPARE(decideReuse(&previous, bufferContentKey(a, 1024, dir.path())), expected);
    }

    void preparedBuffersShareUnchangedInputs() {
        QVector<ArgumentSpec> args{floatBuffer(Direction::In), floatBuffer(Direction::Out)};
        args[1].name = QStringLiteral("y");
        QString error;
        std::optional<std::vector<RunBuffer>> first = prepareBuffers(args, QString(), &error);
        QVERIFY2(first, qPrintable(error));
        QCOMPARE(first->at(0).reuse, BufferReuse::Fresh);
        std::optional<std::vector<RunBuffer>> second =
            prepareBuffers(args, QString(), &error, &*first);
        QVERIFY2(second, qPrintable(error));
        QCOMPARE(second->at(0).reuse, BufferReuse::Contents);
        QCOMPARE(second->at(1).reuse, BufferReuse::Memory);
        // The host contents are the previous run's, shared rather than generated again.
        QCOMPARE(second->at(0).initial.constData(), first->at(0).initial.constData());
        args[0].buffer.init.seed = 99;
        std::optional<std::vector<RunBuffer>> third =
            prepareBuffers(args, QString(), &error, &*second);
        QVERIFY(third);
        QCOMPARE(third->at(0).reuse, BufferReuse::Memory);
        QVERIFY(third->at(0).initial != first->at(0).initial);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestBufferReuse)
} // namespace tst_bufferreuse
#include "tst_bufferreuse.moc"

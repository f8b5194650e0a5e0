// findToolkitProgram: the one search for nvdisasm, ncu and compute-sanitizer (Toolkit.h), which
// finds a program in the order a person sets it up and, when it is missing, names every place
// it looked so the message can say where to put it.

#include "core/compile/Toolkit.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "../support/TestMain.h"

namespace tst_toolkitprogram {

using namespace kernelpad;

namespace {

/// A program name no toolkit or PATH holds.
const QString kTool = QStringLiteral("kernelpad-test-tool");

/// Sets the variables for its lifetime and restores them after.
class Environment {
public:
    void set(const char* name, const QByteArray& value) {
        if (!m_saved.contains(name))
            m_saved.insert(name, qEnvironmentVariableIsSet(name)
                                     ? std::optional<QByteArray>(qgetenv(name))
                                     : std::nullopt);
        qputenv(name, value);
    }
    ~Environment() {
        for (auto it = m_saved.cbegin(); it != m_saved.cend(); ++it) {
            if (it.value())
                qputenv(it.key().constData(), *it.value());
            else
                qunsetenv(it.key().constData());
        }
    }

private:
    QHash<QByteArray, std::optional<QByteArray>> m_saved;
};

bool makeExecutable(const QString& path) {
    QFile f(path);
    if (!QDir().mkpath(QFileInfo(path).path()) || !f.open(QIODevice::WriteOnly) ||
        f.write("#!/bin/sh\n") != 10)
        return false;
    f.close();
    return f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                            QFileDevice::ExeOwner);
}

} // namespace

class TestToolkitProgram : public QObject {
    Q_OBJECT

private slots:
    void missingNamesEveryPlaceInOrder() {
        QTemporaryDir dir;
        Environment env;
        env.set("CUDA_HOME", dir.filePath("home").toUtf8());
        env.set("CUDA_PATH", dir.filePath("path").toUtf8());
        env.set("PATH",
                (dir.filePath("a") + ":" + dir.filePath("b") + ":" + dir.filePath("a")).toUtf8());
        const ToolkitProgram p = findToolkitProgram(kTool, dir.filePath("override"));
        QVERIFY(!p.found());
        QVERIFY(p.path.isEmpty());
        const QStringList looked = p.looked;
        const auto at = [&](const QString& place) { return looked.indexOf(place); };
        QCOMPARE(at(dir.filePath("override")), 0);
        QVERIFY2(at(dir.filePath("home/bin/") + kTool) == 1, qPrintable(looked.join(", ")));
        QVERIFY(at(dir.filePath("path/bin/") + kTool) == 2);
        QVERIFY(at(dir.filePath("a/") + kTool) > 2);
        QVERIFY(at(dir.filePath("b/") + kTool) > at(dir.filePath("a/") + kTool));
        QCOMPARE(looked.count(dir.filePath("a/") + kTool), 1); // no repeats
        QCOMPARE(looked.last(), dir.filePath("b/") + kTool);
    }

    void foundInTheFirstPlaceThatHasIt() {
        QTemporaryDir dir;
        Environment env;
        env.set("CUDA_HOME", dir.filePath("home").toUtf8());
        env.set("CUDA_PATH", dir.filePath("path").toUtf8());
        env.set("PATH", dir.filePath("on-path").toUtf8());
        QVERIFY(makeExecutable(dir.filePath("on-path/") + kTool));
        QCOMPARE(findToolkitProgram(kTool).path, dir.filePath("on-path/") + kTool);
        // The toolkit the user named comes before PATH.
        QVERIFY(makeExecutable(dir.filePath("path/bin/") + kTool));
        const ToolkitProgram p = findToolkitProgram(kTool);
        QCOMPARE(p.path, dir.filePath("path/bin/") + kTool);
        QVERIFY(p.looked.contains(dir.filePath("home/bin/") + kTool));
        QVERIFY(!p.looked.contains(dir.filePath("on-path/") + kTool)); // it stopped there
        // An override beats both; a folder of its own is looked in before bin/.
        QVERIFY(makeExecutable(dir.filePath("home/tool/") + kTool));
        QCOMPARE(
            findToolkitProgram(kTool, {}, {QStringLiteral("tool"), QStringLiteral("bin")}).path,
            dir.filePath("home/tool/") + kTool);
        QVERIFY(makeExecutable(dir.filePath("mine")));
        QCOMPARE(findToolkitProgram(kTool, dir.filePath("mine")).path, dir.filePath("mine"));
    }

    void aFileThatIsNotExecutableIsPassedOver() {
        QTemporaryDir dir;
        Environment env;
        env.set("CUDA_HOME", dir.filePath("home").toUtf8());
        env.set("PATH", dir.filePath("on-path").toUtf8());
        QVERIFY(QDir().mkpath(dir.filePath("home/bin")));
        QFile plain(dir.filePath("home/bin/") + kTool);
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        QVERIFY(makeExecutable(dir.filePath("on-path/") + kTool));
        QCOMPARE(findToolkitProgram(kTool).path, dir.filePath("on-path/") + kTool);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestToolkitProgram)
} // namespace tst_toolkitprogram
#include "tst_toolkitprogram.moc"

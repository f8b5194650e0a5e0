// What KernelPad ships (examples, templates, lessons) and files in read-only folders open as
// untitled copies however they are opened (File ▸ Open, Recent, the command line): Save asks
// where and never writes over them; the copy's inputs still resolve in its folder. Save As
// starts in the folder a .cu came from. A .kpad on the command line that does not open leaves
// the welcome page, not a blank project.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/project/Examples.h"
#include "core/project/LessonWorkspace.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/windows/MainWindow.h"
#include "ui/windows/OpenAtStart.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_shippedcopy {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

const QString kSaxpy = QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad");

QByteArray bytesOf(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

std::unique_ptr<MainWindow> makeWindow(Engine* engine) {
    auto window = std::make_unique<MainWindow>(engine);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    return window;
}

/// A project in `folder` whose input buffer is read from "input.npy" beside it.
QString writeProjectWithInput(const QString& folder) {
    Project project;
    project.name = QStringLiteral("Mine");
    project.source = QStringLiteral("extern \"C\" __global__ void k(float* x) { x[0] += 1; }\n");
    project.kernel = QStringLiteral("k");
    ArgumentSpec x;
    x.name = QStringLiteral("x");
    x.kind = ArgumentSpec::Kind::Buffer;
    x.buffer.elementType = ValueType::of(ScalarType::Float32);
    x.buffer.count = QStringLiteral("4");
    x.buffer.init.kind = InitSpec::Kind::File;
    x.buffer.init.path = QStringLiteral("input.npy");
    x.buffer.direction = Direction::InOut;
    project.arguments = {x};
    const QString path = QDir(folder).filePath(QStringLiteral("mine.kpad"));
    QString error;
    return project.save(path, &error) ? path : QString();
}

} // namespace

class TestShippedCopy : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        qputenv("KERNELPAD_LESSONS", KERNELPAD_LESSONS_DIR);
    }
    void init() {
        RecentFiles().clear();
        QDir(ProjectDocument::recoveryDirectory()).removeRecursively();
    }
    void cleanupTestCase() { QDir(lessonWorkspaceDirectory()).removeRecursively(); }

    void shippedLocationsAreKnown_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("kind");
        QTest::newRow("example") << kSaxpy << int(ShippedKind::Example);
        QTest::newRow("examples folder")
            << QStringLiteral(KERNELPAD_EXAMPLES_DIR) << int(ShippedKind::Example);
        QTest::newRow("template") << QStringLiteral(KERNELPAD_SOURCE_DIR
                                                    "/resources/templates/map_1d.kpad")
                                  << int(ShippedKind::Template);
        QTest::newRow("lesson") << QStringLiteral(KERNELPAD_LESSONS_DIR
                                                  "/01-thread-indices/lesson.kpad")
                                << int(ShippedKind::Lesson);
        QTest::newRow("the source tree's README")
            << QStringLiteral(KERNELPAD_SOURCE_DIR "/README.md") << int(ShippedKind::None);
    }
    void shippedLocationsAreKnown() {
        QFETCH(QString, path);
        QFETCH(int, kind);
        QCOMPARE(int(shippedKind(path)), kind);
        QCOMPARE(ProjectDocument::protectedReason(path).isEmpty(), kind == int(ShippedKind::None));
    }

    // scripts/run opens resources/examples/saxpy.kpad by its path: Ctrl+S must not rewrite it.
    void exampleOpenedByPathIsACopy_data() {
        QTest::addColumn<bool>("fromRecent");
        QTest::newRow("File ▸ Open, the command line") << false;
        QTest::newRow("File ▸ Recent") << true;
    }
    void exampleOpenedByPathIsACopy() {
        QFETCH(bool, fromRecent);
        const QByteArray before = bytesOf(kSaxpy);
        QVERIFY(!before.isEmpty());
        Engine engine;
        auto window = makeWindow(&engine);
        if (fromRecent) {
            QVERIFY(window->openProject(kSaxpy));
            QVERIFY(window->newProject());
            QCOMPARE(RecentFiles().allFiles().value(0), QFileInfo(kSaxpy).absoluteFilePath());
        }
        QVERIFY2(window->openProject(kSaxpy), qPrintable(window->lastError()));
        QVERIFY(window->document()->isUntitled());
        // Its relative inputs resolve where it came from.
        QCOMPARE(window->document()->directory(), QFileInfo(kSaxpy).absolutePath());
        QVERIFY2(window->windowTitle().contains(QStringLiteral("copy of the shipped example")),
                 qPrintable(window->windowTitle()));
        part<CodeEditor>(window, "editor")->append(QStringLiteral("// my change\n"));
        QVERIFY(window->document()->isDirty());
        // Save asks where (no dialogs here: it says so and writes nothing).
        QVERIFY(!window->save());
        QVERIFY2(window->lastError().contains(QStringLiteral("Save As")),
                 qPrintable(window->lastError()));
        QCOMPARE(bytesOf(kSaxpy), before);
        // Not even Save As onto the shipped file (or a new one beside it).
        QVERIFY(!window->saveAs(kSaxpy));
        QVERIFY2(window->lastError().contains(QStringLiteral("not written")),
                 qPrintable(window->lastError()));
        const QString beside =
            QFileInfo(kSaxpy).absoluteDir().filePath(QStringLiteral("my_saxpy_beside_it.kpad"));
        QVERIFY(!window->saveAs(beside));
        QVERIFY(!QFileInfo::exists(beside));
        QCOMPARE(bytesOf(kSaxpy), before);
        QVERIFY(window->document()->isDirty());
        // Save As elsewhere keeps the work; the copy becomes that file.
        QTemporaryDir dir;
        const QString mine = dir.filePath(QStringLiteral("my_saxpy.kpad"));
        QVERIFY(window->saveAs(mine));
        QCOMPARE(window->document()->path(), QFileInfo(mine).absoluteFilePath());
        QVERIFY(!window->windowTitle().contains(QStringLiteral("copy of")));
        QVERIFY(bytesOf(mine).contains("// my change"));
        QCOMPARE(bytesOf(kSaxpy), before);
    }

    void readOnlyFolderOpensAsACopy() {
        QTemporaryDir dir;
        const QString path = writeProjectWithInput(dir.path());
        QVERIFY(!path.isEmpty());
        const QByteArray before = bytesOf(path);
        // Mode bits, so that the test holds when it runs as root too.
        const QFile::Permissions readOnly =
            QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup;
        QVERIFY(QFile::setPermissions(dir.path(), readOnly));
        const auto restore = qScopeGuard([&dir] {
            QFile::setPermissions(dir.path(),
                                  QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        });
        QCOMPARE(ProjectDocument::protectedReason(path), QStringLiteral("a read-only folder"));

        Engine engine;
        auto window = makeWindow(&engine);
        QVERIFY2(window->openProject(path), qPrintable(window->lastError()));
        QVERIFY(window->document()->isUntitled());
        QCOMPARE(window->document()->directory(), QFileInfo(dir.path()).absoluteFilePath());
        QVERIFY2(window->windowTitle().contains(QStringLiteral("copy of a read-only folder")),
                 qPrintable(window->windowTitle()));
        part<CodeEditor>(window, "editor")->append(QStringLiteral("// my change\n"));
        QVERIFY(!window->save());
        QVERIFY(!window->saveAs(path)); // refused by name too, even to root
        QCOMPARE(bytesOf(path), before);
        // Save As does not start in the folder it cannot write.
        QVERIFY(window->document()->saveDirectory() != QFileInfo(dir.path()).absoluteFilePath());
    }

    void writableProjectIsSavedInPlace() {
        QTemporaryDir dir;
        const QString path = writeProjectWithInput(dir.path());
        Engine engine;
        auto window = makeWindow(&engine);
        QVERIFY(window->openProject(path));
        QCOMPARE(window->document()->path(), QFileInfo(path).absoluteFilePath());
        part<CodeEditor>(window, "editor")->append(QStringLiteral("// my change\n"));
        QVERIFY(window->save());
        QVERIFY(bytesOf(path).contains("// my change"));
    }

    // A shipped lesson opened by its path is the student's copy, as its welcome card opens it.
    void shippedLessonOpensTheStudentsCopy() {
        const QString shipped =
            QStringLiteral(KERNELPAD_LESSONS_DIR "/01-thread-indices/lesson.kpad");
        const QByteArray before = bytesOf(shipped);
        Engine engine;
        auto window = makeWindow(&engine);
        QVERIFY2(window->openProject(shipped), qPrintable(window->lastError()));
        QVERIFY(window->document()->path().startsWith(lessonWorkspaceDirectory()));
        part<CodeEditor>(window, "editor")->append(QStringLiteral("// my change\n"));
        QVERIFY(window->save());
        QCOMPARE(bytesOf(shipped), before);
        QVERIFY(bytesOf(window->document()->path()).contains("// my change"));
    }

    void saveOfACuProposesItsFolder() {
        QTemporaryDir dir;
        const QString cu = dir.filePath(QStringLiteral("scale.cu"));
        QFile file(cu);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("extern \"C\" __global__ void scale(float* x, int n)\n"
                   "{\n    int i = threadIdx.x;\n    if (i < n)\n        x[i] *= 2.0f;\n}\n");
        file.close();
        Engine engine;
        auto window = makeWindow(&engine);
        QVERIFY2(window->openProject(cu), qPrintable(window->lastError()));
        QVERIFY(window->document()->isUntitled());
        QCOMPARE(window->document()->saveDirectory(), QFileInfo(dir.path()).absoluteFilePath());
        // A shipped example's copy is never proposed its shipped folder.
        QVERIFY(window->openProject(kSaxpy));
        QVERIFY(window->document()->saveDirectory() !=
                QFileInfo(kSaxpy).absoluteDir().absolutePath());
    }

    void brokenProjectOnTheCommandLineShowsTheWelcomePage() {
        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("broken.kpad"));
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{ \"format\": \"kernelpad-project\", ");
        file.close();
        Engine engine;
        auto window = makeWindow(&engine);
        window->show();
        openAtStart(*window, &engine, broken, /*scripted=*/true, /*run=*/false);
        QVERIFY(window->welcomeShown());
        QVERIFY2(window->lastError().contains(QStringLiteral("broken.kpad")),
                 qPrintable(window->lastError()));
        // A good one opens as before.
        openAtStart(*window, &engine, kSaxpy, true, false);
        QVERIFY(!window->welcomeShown());
        QCOMPARE(window->document()->project().name, QStringLiteral("SAXPY"));
    }
};

KERNELPAD_TEST_MAIN(TestShippedCopy)
} // namespace tst_shippedcopy
#include "tst_shippedcopy.moc"

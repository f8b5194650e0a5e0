// The library baseline editor: a GEMM set in the dialog and accepted becomes the document's
// "baseline" section as one undoable step; Cancel changes nothing; a buffer that is not one of
// the project's, or one of a type the CUB plugin lacks, is refused with the run's own message
// and OK stays disabled; a CUB call's rows replace the GEMM's; Remove Baseline takes the
// section out; the Build menu opens the dialog.

#include "../support/TestMain.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/SettingsHistory.h"
#include "ui/dialogs/BaselineDialog.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

namespace tst_baselinedialog {

using namespace kernelpad;

namespace {

template <typename W> W* part(QWidget* root, const char* name) {
    W* w = root->findChild<W*>(QLatin1String(name));
    if (!w)
        qFatal("no %s in the dialog", name);
    return w;
}

QPushButton* okButton(QWidget* dialog) {
    return dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
}

ArgumentSpec bufferArg(const char* name, ScalarType type, const char* count, Direction d) {
    ArgumentSpec a;
    a.name = QLatin1String(name);
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.elementType = ValueType::of(type);
    a.buffer.count = QLatin1String(count);
    a.buffer.direction = d;
    return a;
}

ArgumentSpec intArg(const char* name, int value) {
    ArgumentSpec a;
    a.name = QLatin1String(name);
    a.type = ValueType::of(ScalarType::Int32);
    a.value = QString::number(value);
    return a;
}

/// A row-major 64 x 16 times 16 x 32 GEMM's arguments and a float16 buffer, no baseline.
Project gemmProject() {
    Project p;
    p.name = QStringLiteral("gemm");
    p.source = QStringLiteral("extern \"C\" __global__ void gemm() {}");
    p.kernel = QStringLiteral("gemm");
    p.arguments = {bufferArg("A", ScalarType::Float32, "M*K", Direction::In),
                   bufferArg("B", ScalarType::Float32, "K*N", Direction::In),
                   bufferArg("C", ScalarType::Float32, "M*N", Direction::Out),
                   bufferArg("H", ScalarType::Float16, "M*N", Direction::In),
                   intArg("M", 64),
                   intArg("N", 32),
                   intArg("K", 16)};
    return p;
}

/// Fills the dialog's GEMM fields: C = A B, row-major, sizes from the scalars.
void fillGemm(BaselineDialog* dialog) {
    part<QComboBox>(dialog, "baseline_order")->setCurrentText(QStringLiteral("row"));
    part<QComboBox>(dialog, "baseline_a")->setCurrentText(QStringLiteral("A"));
    part<QComboBox>(dialog, "baseline_b")->setCurrentText(QStringLiteral("B"));
    part<QComboBox>(dialog, "baseline_c")->setCurrentText(QStringLiteral("C"));
    part<QLineEdit>(dialog, "baseline_m")->setText(QStringLiteral("M"));
    part<QLineEdit>(dialog, "baseline_n")->setText(QStringLiteral("N"));
    part<QLineEdit>(dialog, "baseline_k")->setText(QStringLiteral("K"));
}

} // namespace

class TestBaselineDialog : public QObject {
    Q_OBJECT

private slots:
    void acceptedGemmBecomesTheSection() {
        ProjectDocument document;
        document.replace(gemmProject());
        BaselineDialog dialog(document.project());
        // A new section starts as a GEMM over nothing: refused until its buffers are named.
        QVERIFY(!okButton(&dialog)->isEnabled());
        fillGemm(&dialog);
        QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
        QVERIFY(okButton(&dialog)->isEnabled());
        okButton(&dialog)->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QVERIFY(dialog.applyTo(&document));
        const QJsonObject section =
            document.project().toJson().value(QStringLiteral("baseline")).toObject();
        QCOMPARE(section.value(QStringLiteral("library")).toString(), QStringLiteral("cublas"));
        QCOMPARE(section.value(QStringLiteral("call")).toString(), QStringLiteral("gemm"));
        QCOMPARE(section.value(QStringLiteral("order")).toString(), QStringLiteral("row"));
        QCOMPARE(section.value(QStringLiteral("c")).toString(), QStringLiteral("C"));
        QCOMPARE(section.value(QStringLiteral("m")).toString(), QStringLiteral("M"));
        QCOMPARE(section.value(QStringLiteral("alpha")).toString(), QStringLiteral("1"));
        // One step of the settings history: Undo takes the section out again.
        QUndoStack* stack = document.settingsHistory()->stack();
        QCOMPARE(stack->count(), 1);
        stack->undo();
        QVERIFY(document.project().baseline.isEmpty());
    }

    void cancelChangesNothing() {
        ProjectDocument document;
        document.replace(gemmProject());
        const QJsonObject before = document.project().toJson();
        BaselineDialog dialog(document.project());
        fillGemm(&dialog);
        dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Cancel)->click();
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
        QVERIFY(!dialog.applyTo(&document));
        QCOMPARE(document.project().toJson(), before);
        QCOMPARE(document.settingsHistory()->stack()->count(), 0);
    }

    void refusesWithTheRunsMessage_data() {
        QTest::addColumn<QString>("call");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("no such buffer")
            << QStringLiteral("cuBLAS GEMM") << QStringLiteral("baseline_a") << QStringLiteral("X")
            << QStringLiteral("baseline.a: no buffer argument 'X'; the buffers are A, B, C, H");
        QTest::newRow("the output is an input")
            << QStringLiteral("cuBLAS GEMM") << QStringLiteral("baseline_c") << QStringLiteral("A")
            << QStringLiteral("baseline.c: 'A' is an \"in\" buffer");
        QTest::newRow("a type CUB's plugin lacks")
            << QStringLiteral("CUB reduce") << QStringLiteral("baseline_in") << QStringLiteral("H")
            << QStringLiteral("baseline.in: buffer 'H' holds float16, but CUB's reduce takes "
                              "int32, uint32, float32 or float64");
    }
    void refusesWithTheRunsMessage() {
        QFETCH(QString, call);
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, message);
        BaselineDialog dialog(gemmProject());
        fillGemm(&dialog);
        part<QComboBox>(&dialog, "baselineCall")->setCurrentText(call);
        part<QComboBox>(&dialog, "baseline_in")->setCurrentText(QStringLiteral("A"));
        part<QComboBox>(&dialog, "baseline_out")->setCurrentText(QStringLiteral("C"));
        // n is the GEMM's N and CUB's count alike: K elements fit every buffer.
        if (call.startsWith(QLatin1String("CUB")))
            part<QLineEdit>(&dialog, "baseline_n")->setText(QStringLiteral("K"));
        QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
        part<QComboBox>(&dialog, qPrintable(field))->setCurrentText(value);
        QVERIFY2(dialog.problem().startsWith(message), qPrintable(dialog.problem()));
        QVERIFY(!okButton(&dialog)->isEnabled());
        QCOMPARE(part<QLabel>(&dialog, "baselineProblem")->text(), dialog.problem());
    }

    void cubCallShowsItsOwnRows() {
        BaselineDialog dialog(gemmProject());
        QVERIFY(part<QComboBox>(&dialog, "baseline_a")->isVisibleTo(&dialog));
        part<QComboBox>(&dialog, "baselineCall")->setCurrentText(QStringLiteral("CUB radix sort"));
        QVERIFY(!part<QComboBox>(&dialog, "baseline_a")->isVisibleTo(&dialog));
        QVERIFY(part<QComboBox>(&dialog, "baseline_valuesIn")->isVisibleTo(&dialog));
        QVERIFY(part<QCheckBox>(&dialog, "baseline_descending")->isVisibleTo(&dialog));
        QVERIFY(!part<QLineEdit>(&dialog, "baseline_levels")->isVisibleTo(&dialog));
        part<QComboBox>(&dialog, "baseline_in")->setCurrentText(QStringLiteral("A"));
        part<QComboBox>(&dialog, "baseline_out")->setCurrentText(QStringLiteral("C"));
        part<QLineEdit>(&dialog, "baseline_n")->setText(QStringLiteral("M*K"));
        part<QCheckBox>(&dialog, "baseline_descending")->setChecked(true);
        QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
        const BaselineSpec spec = dialog.baseline();
        QCOMPARE(spec.library, QStringLiteral("cub"));
        QCOMPARE(spec.call, QStringLiteral("sort"));
        QVERIFY(spec.descending);
        QVERIFY(spec.valuesIn.isEmpty());
    }

    void removeTakesTheSectionOut() {
        Project p = gemmProject();
        p.baseline.library = QStringLiteral("cub");
        p.baseline.call = QStringLiteral("reduce");
        p.baseline.in = QStringLiteral("A");
        p.baseline.out = QStringLiteral("C");
        p.baseline.n = QStringLiteral("M");
        ProjectDocument document;
        document.replace(p);
        BaselineDialog dialog(document.project());
        // The section is shown as it is.
        QCOMPARE(part<QComboBox>(&dialog, "baselineCall")->currentText(),
                 QStringLiteral("CUB reduce"));
        QCOMPARE(dialog.baseline(), p.baseline);
        part<QPushButton>(&dialog, "removeBaselineButton")->click();
        QVERIFY(dialog.applyTo(&document));
        QVERIFY(document.project().baseline.isEmpty());
        QVERIFY(!document.project().toJson().contains(QStringLiteral("baseline")));
    }

    void buildMenuOpensTheDialog() {
        Engine engine(nullptr, Engine::Isolation::InProcess);
        MainWindow window(&engine);
        window.setPromptsEnabled(false);
        window.setCompileWhileTyping(false);
        window.document()->replace(gemmProject());
        auto* action = window.findChild<QAction*>(QStringLiteral("libraryBaselineAction"));
        QVERIFY(action);
        bool seen = false;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<BaselineDialog*>(QApplication::activeModalWidget());
            seen = dialog != nullptr;
            if (!dialog)
                return;
            fillGemm(dialog);
            okButton(dialog)->click();
        });
        action->trigger();
        QVERIFY(seen);
        QCOMPARE(window.document()->project().baseline.c, QStringLiteral("C"));
        QCOMPARE(window.document()->settingsHistory()->stack()->count(), 1);
    }
};

KERNELPAD_TEST_MAIN(TestBaselineDialog)
} // namespace tst_baselinedialog
#include "tst_baselinedialog.moc"

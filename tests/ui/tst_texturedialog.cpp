// The texture argument editor: the dialog reads and writes every main setting, refuses the
// combinations the driver would (with the field named) until they are fixed, and the
// argument table shows a texture row and opens the dialog from it.

#include "../support/TestMain.h"
#include "core/launch/TextureArgument.h"
#include "ui/dialogs/TextureDialog.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QToolButton>

namespace tst_texturedialog {

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

} // namespace

class TestTextureDialog : public QObject {
    Q_OBJECT
private slots:
    void showsTheArgument();
    void editsEverySetting();
    void refusesUntilFixed_data();
    void refusesUntilFixed();
    void surfaceHasNoSampler();
    void tableShowsATextureRow();
    void tableOpensTheDialog();
};

void TestTextureDialog::showsTheArgument() {
    ArgumentSpec tex = makeTextureArgument(QStringLiteral("tex"), false);
    tex.texture.dims = {32, 32, 0};
    tex.texture.cubemap = true;
    tex.texture.filter = TextureFilter::Linear;
    tex.texture.normalizedCoords = true;
    tex.texture.address.fill(TextureAddress::Wrap);
    syncTextureContents(tex);
    TextureDialog dialog(tex);
    QCOMPARE(part<QSpinBox>(&dialog, "textureWidth")->value(), 32);
    QCOMPARE(part<QSpinBox>(&dialog, "textureHeight")->value(), 32);
    QVERIFY(part<QCheckBox>(&dialog, "textureCubemap")->isChecked());
    QCOMPARE(part<QComboBox>(&dialog, "textureFilter")->currentText(), QStringLiteral("linear"));
    QCOMPARE(part<QComboBox>(&dialog, "textureAddressY")->currentText(), QStringLiteral("wrap"));
    QVERIFY(part<QCheckBox>(&dialog, "textureNormalized")->isChecked());
    QVERIFY(dialog.problem().isEmpty());
    QVERIFY(okButton(&dialog)->isEnabled());
    QVERIFY(dialog.argument().texture == tex.texture); // nothing changed, nothing lost
    QCOMPARE(part<QLabel>(&dialog, "textureSummary")->text(),
             QStringLiteral("32 x 32 x 6 faces: a cubemap array of 1 × float32 texels, 6144 "
                            "values"));
}

void TestTextureDialog::editsEverySetting() {
    TextureDialog dialog(makeTextureArgument(QStringLiteral("tex"), false));
    part<QSpinBox>(&dialog, "textureWidth")->setValue(128);
    part<QSpinBox>(&dialog, "textureHeight")->setValue(16);
    part<QSpinBox>(&dialog, "textureLayers")->setValue(3);
    part<QComboBox>(&dialog, "textureChannelType")->setCurrentText(QStringLiteral("uint8"));
    part<QComboBox>(&dialog, "textureChannels")->setCurrentText(QStringLiteral("4"));
    part<QComboBox>(&dialog, "textureReadMode")->setCurrentText(QStringLiteral("normalizedFloat"));
    part<QComboBox>(&dialog, "textureFilter")->setCurrentText(QStringLiteral("linear"));
    part<QComboBox>(&dialog, "textureAddressX")->setCurrentText(QStringLiteral("border"));
    part<QComboBox>(&dialog, "textureAddressY")->setCurrentText(QStringLiteral("mirror"));
    part<QCheckBox>(&dialog, "textureNormalized")->setChecked(true);
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    const ArgumentSpec arg = dialog.argument();
    QCOMPARE(arg.texture.dims, (std::array<qint64, 3>{128, 16, 0}));
    QCOMPARE(arg.texture.layers, 3);
    QCOMPARE(arg.texture.shape(), ArrayShape::D2Layered);
    QCOMPARE(arg.texture.channelType, ScalarType::UInt8);
    QCOMPARE(arg.texture.channels, 4);
    QCOMPARE(arg.texture.readMode, TextureReadMode::NormalizedFloat);
    QCOMPARE(arg.texture.filter, TextureFilter::Linear);
    QCOMPARE(arg.texture.address[0], TextureAddress::Border);
    QCOMPARE(arg.texture.address[1], TextureAddress::Mirror);
    QVERIFY(arg.texture.normalizedCoords);
    // The contents follow: 128 x 16 x 3 texels of 4 uint8 values.
    QCOMPARE(arg.buffer.count, QString::number(128 * 16 * 3 * 4));
    QCOMPARE(arg.buffer.elementType, ValueType::of(ScalarType::UInt8));
    QCOMPARE(arg.buffer.init.kind, InitSpec::Kind::Iota); // contents settings are kept
}

void TestTextureDialog::refusesUntilFixed_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    QTest::newRow("linear filter on int32 read as elements")
        << "int32 linear"
        << "texture 'tex': filter: linear filtering needs floating-point";
    QTest::newRow("cubemap not square") << "cubemap 64x32"
                                        << "texture 'tex': cubemap: the 6 "
                                           "faces must be square";
    QTest::newRow("layered 3D") << "layers on 3D"
                                << "texture 'tex': layers: a 3D array cannot "
                                   "be layered";
    QTest::newRow("wrap on unnormalized coordinates")
        << "wrap"
        << "texture 'tex': address: wrap needs normalizedCoords";
    QTest::newRow("mirror on unnormalized y")
        << "mirror y"
        << "texture 'tex': address: mirror needs normalizedCoords";
    QTest::newRow("normalized float read of float32 texels")
        << "float32 normalizedFloat"
        << "texture 'tex': readMode: normalizedFloat converts 8- and 16-bit integer texels";
    QTest::newRow("dims past the buffer limit")
        << "huge"
        << "texture 'tex': dims: 65536 x 65536 x 8 texels of 4 bytes exceed the 16 GiB";
}

void TestTextureDialog::refusesUntilFixed() {
    QFETCH(QString, field);
    QFETCH(QString, message);
    TextureDialog dialog(makeTextureArgument(QStringLiteral("tex"), false));
    QVERIFY(okButton(&dialog)->isEnabled());
    auto* height = part<QSpinBox>(&dialog, "textureHeight");
    std::function<void()> fix;
    if (field == "int32 linear") {
        part<QComboBox>(&dialog, "textureChannelType")->setCurrentText(QStringLiteral("int32"));
        part<QComboBox>(&dialog, "textureFilter")->setCurrentText(QStringLiteral("linear"));
        fix = [&] {
            part<QComboBox>(&dialog, "textureFilter")->setCurrentText(QStringLiteral("point"));
        };
    } else if (field == "cubemap 64x32") {
        height->setValue(32);
        part<QCheckBox>(&dialog, "textureCubemap")->setChecked(true);
        fix = [&] { height->setValue(64); };
    } else if (field == "layers on 3D") {
        part<QSpinBox>(&dialog, "textureDepth")->setValue(8);
        part<QSpinBox>(&dialog, "textureLayers")->setValue(2);
        fix = [&] { part<QSpinBox>(&dialog, "textureLayers")->setValue(0); };
    } else if (field == "mirror y") {
        part<QComboBox>(&dialog, "textureAddressY")->setCurrentText(QStringLiteral("mirror"));
        fix = [&] {
            part<QComboBox>(&dialog, "textureAddressY")->setCurrentText(QStringLiteral("clamp"));
        };
    } else if (field == "float32 normalizedFloat") {
        part<QComboBox>(&dialog, "textureChannelType")->setCurrentText(QStringLiteral("float32"));
        part<QComboBox>(&dialog, "textureReadMode")
            ->setCurrentText(QStringLiteral("normalizedFloat"));
        fix = [&] {
            part<QComboBox>(&dialog, "textureChannelType")->setCurrentText(QStringLiteral("uint8"));
        };
    } else if (field == "huge") {
        part<QComboBox>(&dialog, "textureChannelType")->setCurrentText(QStringLiteral("float32"));
        part<QComboBox>(&dialog, "textureChannels")->setCurrentText(QStringLiteral("1"));
        part<QSpinBox>(&dialog, "textureWidth")->setValue(65536);
        height->setValue(65536);
        part<QSpinBox>(&dialog, "textureDepth")->setValue(8);
        fix = [&] { part<QSpinBox>(&dialog, "textureDepth")->setValue(1); };
    } else {
        part<QComboBox>(&dialog, "textureAddressX")->setCurrentText(QStringLiteral("wrap"));
        fix = [&] { part<QCheckBox>(&dialog, "textureNormalized")->setChecked(true); };
    }
    QVERIFY2(dialog.problem().startsWith(message), qPrintable(dialog.problem()));
    QVERIFY(!okButton(&dialog)->isEnabled());
    QCOMPARE(part<QLabel>(&dialog, "textureProblem")->text(), dialog.problem());
    fix();
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    QVERIFY(okButton(&dialog)->isEnabled());
}

void TestTextureDialog::surfaceHasNoSampler() {
    TextureDialog dialog(makeTextureArgument(QStringLiteral("out"), true));
    QCOMPARE(dialog.windowTitle(), QStringLiteral("Surface 'out'"));
    QVERIFY(!part<QComboBox>(&dialog, "textureFilter")->isEnabled());
    QVERIFY(!part<QComboBox>(&dialog, "textureReadMode")->isEnabled());
    QVERIFY(part<QSpinBox>(&dialog, "textureWidth")->isEnabled());
    // An int32 surface: fine, nothing samples it.
    part<QComboBox>(&dialog, "textureChannelType")->setCurrentText(QStringLiteral("int32"));
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    QCOMPARE(dialog.argument().buffer.direction, Direction::Out);
}

void TestTextureDialog::tableShowsATextureRow() {
    ArgumentTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ArgumentSpec n;
    n.name = QStringLiteral("width");
    n.type = ValueType::of(ScalarType::Int32);
    n.value = QStringLiteral("64");
    model.setArguments({n, makeTextureArgument(QStringLiteral("tex"), false)});
    const auto cell = [&](int column) { return model.index(1, column); };
    QCOMPARE(cell(ArgumentTableModel::KindColumn).data().toString(), QStringLiteral("texture"));
    QCOMPARE(cell(ArgumentTableModel::TypeColumn).data().toString(), QStringLiteral("1 × float32"));
    QCOMPARE(cell(ArgumentTableModel::ValueColumn).data().toString(), QStringLiteral("64 x 64"));
    QCOMPARE(cell(ArgumentTableModel::InitColumn).data().toString(), QStringLiteral("iota 0 1"));
    QVERIFY(!(model.flags(cell(ArgumentTableModel::TypeColumn)) & Qt::ItemIsEditable));
    QVERIFY(!(model.flags(cell(ArgumentTableModel::ValueColumn)) & Qt::ItemIsEditable));
    QVERIFY(!(model.flags(cell(ArgumentTableModel::VerifyColumn)) & Qt::ItemIsEditable));
    QVERIFY(model.flags(cell(ArgumentTableModel::InitColumn)) & Qt::ItemIsEditable);
    QVERIFY(model.isValid());

    // A surface has a direction and a verification.
    QVERIFY(model.setData(cell(ArgumentTableModel::KindColumn), QStringLiteral("surface")));
    QCOMPARE(model.arguments().at(1).kind, ArgumentSpec::Kind::Surface);
    QCOMPARE(cell(ArgumentTableModel::DirectionColumn).data().toString(), QStringLiteral("out"));
    QVERIFY(model.setData(cell(ArgumentTableModel::VerifyColumn),
                          QStringLiteral("expression i*2 atol=0 rtol=0")));
    QCOMPARE(model.arguments().at(1).buffer.verify.expression, QStringLiteral("i*2"));
    // A bad array shows in the Value cell with the field named, as the loader names it.
    ArgumentSpec bad = model.arguments().at(1);
    bad.texture.cubemap = true;
    bad.texture.dims = {64, 32, 0};
    syncTextureContents(bad);
    QVERIFY(model.setArgument(1, bad));
    QVERIFY2(model.cellProblem(1, ArgumentTableModel::ValueColumn)
                 .startsWith(QStringLiteral("surface 'tex': cubemap:")),
             qPrintable(model.cellProblem(1, ArgumentTableModel::ValueColumn)));
    QVERIFY(!model.isValid());
    // Back to a buffer: the contents become the buffer.
    QVERIFY(model.setData(cell(ArgumentTableModel::KindColumn), QStringLiteral("buffer")));
    QCOMPARE(model.arguments().at(1).buffer.count, QString::number(64 * 32 * 6));
}

void TestTextureDialog::tableOpensTheDialog() {
    ArgumentTableView view;
    view.model()->setArguments({makeTextureArgument(QStringLiteral("tex"), false)});
    auto* button = view.findChild<QToolButton*>(QStringLiteral("editTexture"));
    QVERIFY(button);
    QVERIFY(!button->isEnabled());
    view.tableView()->setCurrentIndex(view.model()->index(0, ArgumentTableModel::NameColumn));
    QVERIFY(button->isEnabled());
    bool seen = false;
    QTimer::singleShot(0, this, [&] {
        auto* dialog = qobject_cast<TextureDialog*>(QApplication::activeModalWidget());
        seen = dialog != nullptr;
        if (!dialog)
            return;
        part<QSpinBox>(dialog, "textureWidth")->setValue(100);
        part<QSpinBox>(dialog, "textureHeight")->setValue(0);
        okButton(dialog)->click();
    });
    button->click();
    QVERIFY(seen);
    const ArgumentSpec arg = view.model()->arguments().at(0);
    QCOMPARE(arg.texture.dims, (std::array<qint64, 3>{100, 0, 0}));
    QCOMPARE(arg.buffer.count, QStringLiteral("100"));
    QCOMPARE(view.model()->index(0, ArgumentTableModel::ValueColumn).data().toString(),
             QStringLiteral("100"));
}

KERNELPAD_TEST_MAIN(TestTextureDialog)
} // namespace tst_texturedialog
#include "tst_texturedialog.moc"

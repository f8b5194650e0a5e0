// The PTX view: a failed compile keeps the last good PTX, marked stale,
// and the entry picker shows demangled names beside the lowered ones (point 11).

#include "../support/TestMain.h"
#include "ui/widgets/KernelItems.h"
#include "ui/widgets/PtxView.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTest>

namespace tst_ptxview {

using namespace kernelpad;

namespace {

const char* const kPtx = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry _Z5saxpyfPKfPfi(
	.param .f32 _Z5saxpyfPKfPfi_param_0,
	.param .u64 _Z5saxpyfPKfPfi_param_1,
	.param .u64 _Z5saxpyfPKfPfi_param_2,
	.param .u32 _Z5saxpyfPKfPfi_param_3
)
{
	ret;
}

.visible .entry fill(
	.param .u64 fill_param_0
)
{
	ret;
}
)";

CompileResult compiled(bool ok) {
    CompileResult r;
    r.ok = ok;
    if (ok)
        r.ptx = QString::fromLatin1(kPtx);
    return r;
}

} // namespace

class TestPtxView : public QObject {
    Q_OBJECT
private slots:
    void failedCompileKeepsTheLastGoodPtx();
    void entriesShowDemangledNames();
};

void TestPtxView::failedCompileKeepsTheLastGoodPtx() {
    PtxView view;
    view.show();
    auto* banner = view.findChild<QLabel*>(QStringLiteral("stalePtxBanner"));
    QVERIFY(banner);
    view.showCompile(compiled(true), QTime(14, 5, 9));
    QCOMPARE(view.ptx(), QString::fromLatin1(kPtx));
    QVERIFY(!view.isStale());
    QVERIFY(!banner->isVisible());

    view.showCompile(compiled(false), QTime(14, 6, 0));
    QCOMPARE(view.ptx(), QString::fromLatin1(kPtx)); // not blank
    QVERIFY(view.isStale());
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().contains(QStringLiteral("last successful compile at 14:05:09")),
             qPrintable(banner->text()));
    QVERIFY(banner->text().contains(QStringLiteral("does not compile")));
    QCOMPARE(view.entries().size(), 2); // still navigable

    view.showCompile(compiled(true), QTime(14, 7, 0));
    QVERIFY(!view.isStale());
    QVERIFY(!banner->isVisible());

    // Another project: nothing stale carried over.
    view.clear();
    view.showCompile(compiled(false), QTime(14, 8, 0));
    QVERIFY(view.ptx().isEmpty());
    QVERIFY(!view.isStale());
}

void TestPtxView::entriesShowDemangledNames() {
    PtxView view;
    view.setPtx(QString::fromLatin1(kPtx));
    auto* entries = view.findChild<QComboBox*>(QStringLiteral("ptxEntries"));
    QVERIFY(entries);
    QCOMPARE(entries->count(), 2);
    QCOMPARE(entries->itemText(0), QStringLiteral("saxpy"));
    QCOMPARE(entries->itemData(0, kLoweredNameRole).toString(), QStringLiteral("_Z5saxpyfPKfPfi"));
    QVERIFY(entries->itemData(0, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("saxpy(float, float const*, float*, int)")));
    // The list draws the lowered name beside the demangled one; an extern "C" name once.
    const QModelIndex first = entries->model()->index(0, 0);
    const QModelIndex second = entries->model()->index(1, 0);
    QCOMPARE(KernelItemDelegate::besideText(first), QStringLiteral("_Z5saxpyfPKfPfi"));
    QCOMPARE(KernelItemDelegate::besideText(second), QString());
    auto* delegate = qobject_cast<KernelItemDelegate*>(entries->view()->itemDelegate());
    QVERIFY(delegate);
    QStyleOptionViewItem option;
    option.initFrom(entries->view());
    const int plain = option.fontMetrics.horizontalAdvance(QStringLiteral("saxpy"));
    const int lowered = option.fontMetrics.horizontalAdvance(QStringLiteral("_Z5saxpyfPKfPfi"));
    QVERIFY(delegate->sizeHint(option, first).width() >= plain + lowered);
}

KERNELPAD_TEST_MAIN(TestPtxView)
} // namespace tst_ptxview
#include "tst_ptxview.moc"

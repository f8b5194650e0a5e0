// Which module globals are the project's own: a toolkit header's (libcu++'s inline namespace
// __4, cooperative groups' __v1) are told apart from the project's, by the words its own
// source and headers spell.

#include "../support/TestMain.h"
#include "core/compile/ProjectGlobals.h"

#include <QtTest>

namespace tst_projectglobals {

using namespace kernelpad;

class TestProjectGlobals : public QObject {
    Q_OBJECT

private slots:
    void partsOfAName_data();
    void partsOfAName();
    void ownGlobalsMarked_data();
    void ownGlobalsMarked();
};

void TestProjectGlobals::partsOfAName_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("parts");
    QTest::newRow("plain") << "counter" << QStringList{"counter"};
    QTest::newRow("namespaced") << "stats::overflow" << QStringList{"stats", "overflow"};
    QTest::newRow("template arguments dropped")
        << "cuda::std::__4::integral_constant<bool, (bool)1>::value"
        << QStringList{"cuda", "std", "__4", "integral_constant", "value"};
    QTest::newRow("names inside template arguments dropped")
        << "a::b<c::d, e<f::g>>::h" << QStringList{"a", "b", "h"};
    QTest::newRow("internal linkage prefix dropped")
        << "_INTERNAL_00000000_4_t_cu_785173d1::cooperative_groups::__v1::details::_unused"
        << QStringList{"cooperative_groups", "__v1", "details", "_unused"};
    QTest::newRow("anonymous namespace dropped")
        << "(anonymous namespace)::table" << QStringList{"table"};
}

void TestProjectGlobals::partsOfAName() {
    QFETCH(QString, name);
    QFETCH(QStringList, parts);
    QCOMPARE(qualifiedNameParts(name), parts);
}

void TestProjectGlobals::ownGlobalsMarked_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("own");
    QTest::newRow("declared in the source") << "filter" << true;
    QTest::newRow("in the project's namespace") << "stats::overflow" << true;
    QTest::newRow("in an anonymous namespace of the source")
        << "(anonymous namespace)::gain" << true;
    QTest::newRow("in a project header") << "fromHeader" << true;
    QTest::newRow("libcu++'s, though the source says value")
        << "cuda::std::__4::integral_constant<bool, false>::value" << false;
    QTest::newRow("cooperative groups'")
        << "_INTERNAL_1_t_cu::cooperative_groups::__v1::details::grid_group_id" << false;
    QTest::newRow("a name the project never spells") << "elsewhere" << false;
}

void TestProjectGlobals::ownGlobalsMarked() {
    QFETCH(QString, name);
    QFETCH(bool, own);
    ModuleGlobal global;
    global.name = name;
    QVector<ModuleGlobal> globals{global};
    const QStringList texts{
        QStringLiteral("#include <cuda/std/type_traits>\n__constant__ float filter[9];\n"
                       "namespace stats { __device__ unsigned overflow; }\n"
                       "namespace { __constant__ float gain; }\n"
                       "__global__ void k(int value) { filter[0] = value; }\n"),
        QStringLiteral("__device__ int fromHeader;\n")};
    markProjectGlobals(&globals, texts);
    QCOMPARE(globals.first().fromProject, own);
}

KERNELPAD_TEST_GUILESS_MAIN(TestProjectGlobals)
} // namespace tst_projectglobals
#include "tst_projectglobals.moc"

// The one-sentence verdict of an edit (core/engine/EditVerdict.h): the words and numbers for
// each kind of change, on samples whose medians are known exactly.

#include "../support/DrivenAb.h"
#include "../support/TestMain.h"
#include "core/compile/CompileCache.h"
#include "core/engine/EditVerdict.h"
#include "core/engine/EditVerdictSass.h"
#include "core/run/AbVerdict.h"
#include "core/run/ExecutionSession.h"
#include "core/run/RunResult.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

namespace tst_editverdict {

using namespace kernelpad;

namespace {

/// 101 times spread evenly over ±1 % of `medianMs`: the median is `medianMs` exactly.
TimingStats timed(double medianMs, int count = 101) {
    QVector<double> times;
    const int half = count / 2;
    for (int i = 0; i < count; ++i)
        times << medianMs * (1.0 + 0.01 * double(i - half) / std::max(half, 1));
    return computeStats(times);
}

/// Only the median, as a side whose samples were not kept.
TimingStats medianOnly(double medianMs) {
    TimingStats t;
    t.medianMs = medianMs;
    t.minMs = medianMs * 0.99;
    t.maxMs = medianMs * 1.01;
    return t;
}

KernelResources resources(int registers, double occupancy, int localBytes = 0,
                          int sharedBytes = 0) {
    KernelResources r;
    r.registers = registers;
    r.occupancy = occupancy;
    r.localBytes = localBytes;
    r.staticSharedBytes = sharedBytes;
    return r;
}

VerdictSide side(const TimingStats& timing, std::optional<KernelResources> r = std::nullopt) {
    VerdictSide s;
    s.timing = timing;
    s.resources = r;
    return s;
}

} // namespace

class TestEditVerdict : public QObject {
    Q_OBJECT
private slots:
    void slowerWithRegistersAndOpcodes() {
        // The sentence of docs/ARCHITECTURE.md's example, word for word.
        VerdictSide before = side(timed(1.0), resources(30, 0.75));
        VerdictSide after = side(timed(1.018), resources(32, 0.62));
        before.sassOpcodes = QMap<QString, int>{{"LDG.E", 2}, {"FFMA", 8}};
        after.sassOpcodes = QMap<QString, int>{{"LDG.E", 6}, {"FFMA", 8}};
        const EditVerdict v = editVerdict(before, after);
        QCOMPARE(v.significance, VerdictSignificance::Significant);
        QCOMPARE(v.sentence, QStringLiteral("1.8 % slower (significant): 2 more registers → "
                                            "occupancy 75 % → 62 %; 4 more LDG.E"));
        QVERIFY2(v.low > 1.0 && v.high > v.low, qPrintable(QString::number(v.low)));
    }

    void fasterSignificantWithMoreRegistersLowerOccupancy() {
        const EditVerdict v = editVerdict(side(timed(2.0), resources(32, 1.0)),
                                          side(timed(1.6), resources(40, 0.75)));
        QCOMPARE(v.significance, VerdictSignificance::Significant);
        QCOMPARE(v.sentence, QStringLiteral("20 % faster (significant): 8 more registers → "
                                            "occupancy 100 % → 75 %"));
        QCOMPARE(v.causes.size(), 2); // registers and occupancy, one part of the sentence
        QCOMPARE(v.causes.at(0).kind, QStringLiteral("registers"));
        QCOMPARE(v.causes.at(0).before, 32.0);
        QCOMPARE(v.causes.at(0).after, 40.0);
        QCOMPARE(v.causes.at(1).kind, QStringLiteral("occupancy"));
        QCOMPARE(v.causes.at(1).after, 75.0);
    }

    void largeSpeedupAsFactor() {
        const EditVerdict v = editVerdict(side(timed(3.2)), side(timed(1.0)));
        QCOMPARE(v.sentence, QStringLiteral("3.2× faster (significant)"));
    }

    void withinNoise() {
        const EditVerdict v = editVerdict(side(timed(1.0), resources(32, 1.0)),
                                          side(timed(1.001), resources(32, 1.0)));
        QCOMPARE(v.significance, VerdictSignificance::WithinNoise);
        QCOMPARE(v.sentence, QStringLiteral("0.1 % slower (within noise)"));
        QVERIFY(v.causes.isEmpty()); // nothing changed, nothing named
    }

    void noSamplesNeverSignificant() {
        const EditVerdict v = editVerdict(side(medianOnly(1.0)), side(medianOnly(1.018)));
        QCOMPARE(v.significance, VerdictSignificance::NoSamples);
        QCOMPARE(v.sentence, QStringLiteral("1.8 % slower (significance unknown: no samples)"));
        QVERIFY(!v.sentence.contains(QStringLiteral("(significant")));
        // One side with samples is not enough either.
        QCOMPARE(editVerdict(side(timed(1.0)), side(medianOnly(1.5))).significance,
                 VerdictSignificance::NoSamples);
    }

    void tooFewSamples() {
        const EditVerdict v = editVerdict(side(timed(1.0, 3)), side(timed(3.0, 101)));
        QCOMPARE(v.significance, VerdictSignificance::TooFewSamples);
        QVERIFY2(v.sentence.startsWith(QStringLiteral("3.0× slower (too few samples to tell: 3 "
                                                      "and 101 samples (at least 6 each))")),
                 qPrintable(v.sentence));
    }

    void clocksApartNotComparable() {
        TimingStats before = timed(1.0);
        TimingStats after = timed(1.1);
        before.smClockMHz = 1980;
        after.smClockMHz = 1755;
        const EditVerdict v = editVerdict(side(before), side(after));
        QCOMPARE(v.significance, VerdictSignificance::NotComparable);
        QCOMPARE(v.sentence,
                 QStringLiteral("10 % slower (not comparable: SM clock 1980 → 1755 MHz)"));
    }

    void profileDeltas() {
        ProfileReport was;
        was.speedOfLight.dramBytes = 1.0e9;
        was.speedOfLight.l2HitRatePct = 50;
        was.speedOfLight.dramThroughputPct = 90;
        ProfileReport now;
        now.speedOfLight.dramBytes = 6.0e7;
        now.speedOfLight.l2HitRatePct = 52;
        now.speedOfLight.dramThroughputPct = 30;
        VerdictSide before = side(timed(1.0));
        VerdictSide after = side(timed(0.9));
        before.profile = &was;
        after.profile = &now;
        const EditVerdict v = editVerdict(before, after);
        QCOMPARE(v.sentence, QStringLiteral("10 % faster (significant): DRAM bytes −94 %"));
        QCOMPARE(v.causes.size(), 1);
        QCOMPARE(v.causes.at(0).name, QStringLiteral("DRAM bytes"));
        QCOMPARE(v.causes.at(0).after, 6.0e7);
        // Only one side profiled: no profile figure.
        after.profile = nullptr;
        QCOMPARE(editVerdict(before, after).sentence, QStringLiteral("10 % faster (significant)"));
    }

    void spillsAppear() {
        VerdictSide before = side(timed(1.0), resources(255, 0.25));
        VerdictSide after = side(timed(1.3), resources(255, 0.25, 48));
        before.spillBytes = 0;
        after.spillBytes = 48;
        QCOMPARE(editVerdict(before, after).sentence,
                 QStringLiteral("30 % slower (significant): spills appear (48 B)"));
        // Without ptxas's report, the driver's local memory stands for them.
        before.spillBytes.reset();
        after.spillBytes.reset();
        const EditVerdict v = editVerdict(before, after);
        QCOMPARE(v.sentence, QStringLiteral("30 % slower (significant): local memory 0 B → 48 B "
                                            "per thread (spills or a local array)"));
        QCOMPARE(v.causes.at(0).kind, QStringLiteral("localMemory"));
    }

    void causesMostTellingFirst() {
        // Spills, then what changed the occupancy, then the profile, then the SASS; registers
        // that left the occupancy as it was come last.
        ProfileReport was;
        was.speedOfLight.l1HitRatePct = 80;
        ProfileReport now;
        now.speedOfLight.l1HitRatePct = 40;
        VerdictSide before = side(timed(1.0), resources(32, 0.5, 0, 0));
        VerdictSide after = side(timed(1.2), resources(33, 0.5, 16, 4096));
        before.profile = &was;
        after.profile = &now;
        before.sassOpcodes = QMap<QString, int>{{"STL", 0}, {"FFMA", 10}, {"IMAD", 4}};
        after.sassOpcodes =
            QMap<QString, int>{{"STL", 2}, {"FFMA", 4}, {"IMAD", 5}, {"LDS", 3}, {"BAR", 1}};
        const EditVerdict v = editVerdict(before, after);
        QCOMPARE(v.sentence, QStringLiteral("20 % slower (significant): local memory 0 B → 16 B "
                                            "per thread (spills or a local array); L1 hit rate "
                                            "−50 %; 6 fewer FFMA; 3 more LDS; 2 more STL; 1 more "
                                            "register; 4 KiB more shared memory"));
    }

    void untimedSideLeavesTimeOut() {
        const EditVerdict v = editVerdict(side(TimingStats(), resources(32, 1.0)),
                                          side(timed(1.0), resources(24, 1.0)));
        QCOMPARE(v.significance, VerdictSignificance::NotTimed);
        QCOMPARE(v.sentence, QStringLiteral("8 fewer registers"));
        QCOMPARE(editVerdict(VerdictSide(), VerdictSide()).sentence,
                 QStringLiteral("no change known"));
        // Unknown resources (registers 0) are left out, not compared.
        QCOMPARE(editVerdict(side(TimingStats(), resources(0, 0)),
                             side(TimingStats(), resources(32, 1.0)))
                     .sentence,
                 QStringLiteral("no change known"));
    }

    void failedRunGivesNothing() {
        RunResult ok;
        ok.timing = timed(1.0);
        ok.resources = resources(32, 1.0);
        QVERIFY(verdictSideOf(ok).resources.has_value());
        QCOMPARE(verdictSideOf(ok).timing.reps(), 101);
        RunResult failed = ok;
        failed.status = RunStatus::VerificationFailed;
        QCOMPARE(verdictSideOf(failed).timing.reps(), 0);
        QVERIFY(!verdictSideOf(failed).resources);
    }

    void jsonForm() {
        VerdictSide before = side(timed(1.0), resources(30, 0.75));
        VerdictSide after = side(timed(1.018), resources(32, 0.62));
        const QJsonObject json = editVerdict(before, after).toJson();
        QCOMPARE(json.value("significance").toString(), QStringLiteral("significant"));
        QVERIFY(json.value("sentence").toString().startsWith(QStringLiteral("1.8 % slower")));
        const QJsonObject time = json.value("time").toObject();
        QCOMPARE(time.value("beforeMs").toDouble(), 1.0);
        QCOMPARE(time.value("afterMs").toDouble(), 1.018);
        QVERIFY(qAbs(time.value("changePct").toDouble() - 1.8) < 1e-9);
        QVERIFY(time.value("low").toDouble() > 1.0);
        const QJsonArray causes = json.value("causes").toArray();
        QCOMPARE(causes.size(), 2);
        QCOMPARE(causes.at(0).toObject().value("kind").toString(), QStringLiteral("registers"));
        QCOMPARE(causes.at(0).toObject().value("after").toDouble(), 32.0);
        // Untimed: no "time" object.
        QVERIFY(!editVerdict(VerdictSide(), VerdictSide()).toJson().contains("time"));
    }

    void abTimeStandsAsItIs() {
        AbVerdict ab;
        ab.kind = AbVerdict::Kind::Slower;
        ab.medianAMs = 1.0;
        ab.medianBMs = 1.018;
        ab.ratio = 1.018;
        ab.low = 1.012;
        ab.high = 1.024;
        VerdictSide a;
        a.resources = resources(30, 0.75);
        VerdictSide b;
        b.resources = resources(32, 0.62);
        const EditVerdict v = editVerdict(ab, a, b);
        QCOMPARE(v.sentence, QStringLiteral("1.8 % slower (significant): 2 more registers → "
                                            "occupancy 75 % → 62 %"));
        QCOMPARE(v.low, 1.012);
        ab.kind = AbVerdict::Kind::Refused;
        ab.reason = QStringLiteral("cannot compare: A ran at 1980 MHz, B at 1755 MHz (SM clock)");
        QCOMPARE(editVerdict(ab, VerdictSide(), VerdictSide()).sentence,
                 QStringLiteral("1.8 % slower (not comparable: A ran at 1980 MHz, B at 1755 MHz "
                                "(SM clock))"));
        // No medians (too few launches): the time is left out.
        AbVerdict few;
        few.kind = AbVerdict::Kind::TooFewSamples;
        few.reason = QStringLiteral("too few launches: A 3, B 3 (at least 6 each)");
        QCOMPARE(editVerdict(few, a, b).significance, VerdictSignificance::NotTimed);
        QCOMPARE(editVerdict(few, a, b).sentence,
                 QStringLiteral("2 more registers → occupancy 75 % → 62 %"));
    }

    void abArmsKeepTheirResources() {
        // An A/B driven to its end with fabricated runs: each arm's verified run gives the
        // resources the verdict names beside the A/B's own time.
        AbOrder order;
        order.a.project.kernel = QStringLiteral("a");
        order.b.project.kernel = QStringLiteral("b");
        order.labelA = QStringLiteral("version 1");
        order.labelB = QStringLiteral("the editor");
        const std::optional<AbResult> driven = test::driveAb(order, [](const RunRequest& request) {
            const bool isA = request.project.kernel == QLatin1String("a");
            RunResult r;
            r.timing = timed(isA ? 1.0 : 1.018);
            r.resources = isA ? resources(30, 0.75) : resources(32, 0.62);
            return r;
        });
        QVERIFY(driven);
        const AbResult& result = *driven;
        QVERIFY2(result.status == AbResult::Status::Verdict, qPrintable(result.headline()));
        QVERIFY(result.a.resources && result.b.resources);
        QCOMPARE(result.a.resources->registers, 30);
        QCOMPARE(result.b.toJson().value("resources").toObject().value("registers").toInt(), 32);
        VerdictSide a;
        a.resources = result.a.resources;
        VerdictSide b;
        b.resources = result.b.resources;
        QCOMPARE(editVerdict(result.verdict, a, b).sentence,
                 QStringLiteral("1.8 % slower (significant): 2 more registers → occupancy 75 % → "
                                "62 %"));
    }

    void compileSideReadsPtxasReport() {
        CompileResult compile;
        compile.ptx = QStringLiteral(".visible .entry saxpy(\n)\n{\n ret;\n}\n");
        compile.log = QStringLiteral(
            "ptxas info    : Compiling entry function 'saxpy' for 'sm_90'\n"
            "ptxas info    : Function properties for saxpy\n"
            "    16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
            "ptxas info    : Used 40 registers, 1024 bytes smem, 380 bytes cmem[0]\n");
        const VerdictSide side = verdictSideOf(compile, nullptr, QStringLiteral("saxpy"));
        QVERIFY2(side.resources, "ptxas's report was not read");
        QCOMPARE(side.resources->registers, 40);
        QCOMPARE(side.resources->staticSharedBytes, 1024);
        QCOMPARE(side.spillBytes.value_or(-1), 8);
        QVERIFY(!side.sassOpcodes);
        QCOMPARE(side.resources->occupancy, 0.0); // unknown without a launch
        // No report (a PTX input, or no -v): nothing.
        CompileResult bare;
        bare.ptx = compile.ptx;
        QVERIFY(!verdictSideOf(bare, nullptr, QStringLiteral("saxpy")).resources);
    }

    void opcodeCounts() {
        SassFunction f;
        for (const char* op : {"LDG.E", "FFMA", "LDG.E", "EXIT"}) {
            SassInstruction i;
            i.opcode = QString::fromLatin1(op);
            f.instructions << i;
        }
        const QMap<QString, int> counts = sassOpcodeCounts(f);
        QCOMPARE(counts.value("LDG.E"), 2);
        QCOMPARE(counts.value("FFMA"), 1);
        QCOMPARE(counts.size(), 3);
    }

    // The key names the compile by what decides its code: the -lineinfo a disassembly adds and
    // the ptxas -v the Diff tab adds leave it as it is; anything else makes another.
    void sassKeyOfACompile() {
        Project p;
        p.source = QStringLiteral("extern \"C\" __global__ void k() {}\n");
        p.kernel = QStringLiteral("k");
        CompileResult sm90;
        sm90.arch = QStringLiteral("sm_90");
        const QByteArray key = sassCompileKey(p, sm90);
        QVERIFY(!key.isEmpty());
        QVERIFY(sassCompileKey(p, CompileResult()).isEmpty()); // no arch: names nothing
        Project lines = p;
        lines.options.lineInfo = true;
        lines.options.extraFlags << QStringLiteral("-Xptxas") << QStringLiteral("-v");
        QCOMPARE(sassCompileKey(lines, sm90), key);
        Project launched = p; // the launch and arguments are not the compile's
        launched.launch.block = {64, 1, 1};
        QCOMPARE(sassCompileKey(launched, sm90), key);
        CompileResult sm80 = sm90;
        sm80.arch = QStringLiteral("sm_80");
        QVERIFY(sassCompileKey(p, sm80) != key);
        Project edited = p;
        edited.source += QStringLiteral("// edited\n");
        QVERIFY(sassCompileKey(edited, sm90) != key);
        Project defined = p;
        defined.options.defines << QStringLiteral("N=4");
        QVERIFY(sassCompileKey(defined, sm90) != key);
    }

    // A header edited alone leaves the project as it was: the compiles name the headers they
    // read, so the SASS of the compile before the edit is not taken for the one after it,
    // with a compile cache or without, and after the result crossed the runner protocol.
    void sassKeyFollowsAHeaderEdit_data() {
        QTest::addColumn<bool>("cached");
        QTest::newRow("no-cache") << false;
        QTest::newRow("memory-cache") << true;
    }
    void sassKeyFollowsAHeaderEdit() {
        QFETCH(bool, cached);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Project p;
        p.source = QStringLiteral("#include \"scale.cuh\"\n"
                                  "extern \"C\" __global__ void k(float* y) { y[0] *= SCALE; }\n");
        p.sourceName = QStringLiteral("k.cu");
        p.kernel = QStringLiteral("k");
        CompileCache cache(CompileCache::kDefaultCapacity, QString());
        const auto compileWith = [&](const QByteArray& header) {
            QFile f(dir.filePath(QStringLiteral("scale.cuh")));
            if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(header) < 0)
                qFatal("cannot write %s", qPrintable(f.fileName()));
            f.close();
            return compileProject(p, dir.path(), QStringLiteral("sm_90"),
                                  cached ? &cache : nullptr);
        };
        const CompileResult before = compileWith("#define SCALE 2.0f\n");
        QVERIFY2(before.ok, qPrintable(before.log + before.error));
        QVERIFY(!before.includeFingerprint.isEmpty());
        const CompileResult after = compileWith("#define SCALE 3.0f\n");
        QVERIFY2(after.ok, qPrintable(after.log + after.error));
        QVERIFY(before.machineCodeHash() != after.machineCodeHash()); // the code did change
        const QByteArray keyBefore = sassCompileKey(p, before);
        QVERIFY(!keyBefore.isEmpty());
        QVERIFY(sassCompileKey(p, after) != keyBefore);

        // The header as it was: the same key again (a disassembly's -lineinfo compile of it
        // matches a run's).
        Project withLines = p;
        withLines.options.lineInfo = true;
        const CompileResult again = compileWith("#define SCALE 2.0f\n");
        QCOMPARE(sassCompileKey(withLines, again), keyBefore);
        // A run's compile comes from the runner as JSON.
        QString error;
        const std::optional<CompileResult> sent = CompileResult::fromJson(before.toJson(), &error);
        QVERIFY2(sent, qPrintable(error));
        QCOMPARE(sent->includeFingerprint, before.includeFingerprint);
        QCOMPARE(sassCompileKey(p, *sent), keyBefore);
    }

    void opcodesOfAReport() {
        SassReport report;
        report.compile.ok = true;
        KernelInfo listed;
        listed.name = listed.lowered = QStringLiteral("k");
        KernelInfo unlisted;
        unlisted.name = unlisted.lowered = QStringLiteral("gone");
        report.compile.kernels = {listed, unlisted};
        report.sass.ok = true;
        SassFunction f;
        f.name = QStringLiteral("k");
        for (const char* op : {"LDG.E", "LDG.E", "EXIT"}) {
            SassInstruction i;
            i.opcode = QString::fromLatin1(op);
            f.instructions << i;
        }
        report.sass.listing.functions << f;
        const SassOpcodesByKernel counts = sassOpcodesOf(report);
        QCOMPARE(counts.keys(), QStringList{QStringLiteral("k")});
        QCOMPARE(counts.value(QStringLiteral("k")), sassOpcodeCounts(f));
        // A stopped or failed disassembly names nothing.
        SassReport stopped = report;
        stopped.sass.cancelled = true;
        QVERIFY(sassOpcodesOf(stopped).isEmpty());
        SassReport failed = report;
        failed.sass.ok = false;
        QVERIFY(sassOpcodesOf(failed).isEmpty());
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestEditVerdict)

} // namespace tst_editverdict

#include "tst_editverdict.moc"

// PTX and NVVM IR programs (no driver needed: nvJitLink and libNVVM run on the host): a
// hand-written PTX SAXPY assembles to a CUBIN, ptxas errors land on their lines, NVVM IR
// compiles to PTX and CUBIN, the project's language round-trips, and the compile cache keeps
// the languages apart.

#include "core/compile/CompileCache.h"
#include "core/compile/KernelSignature.h"
#include "core/compile/Program.h"
#include "core/compile/PtxAssembler.h"
#include "core/compile/PtxParser.h"
#include "core/project/Project.h"
#include "core/project/ProjectDiff.h"
#include "core/project/ProjectFromSource.h"
#include "core/run/ExecutionSession.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

namespace tst_ptxprogram {

using namespace kernelpad;

namespace {

const char* const kPtxSaxpy = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry saxpy(
    .param .f32 saxpy_a,
    .param .u64 saxpy_x,
    .param .u64 saxpy_y,
    .param .u32 saxpy_n
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<8>;

    ld.param.f32 %f1, [saxpy_a];
    ld.param.u64 %rd1, [saxpy_x];
    ld.param.u64 %rd2, [saxpy_y];
    ld.param.u32 %r1, [saxpy_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.f32 %f2, [%rd6];
    ld.global.f32 %f3, [%rd7];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd7], %f4;
DONE:
    ret;
}
)";

// A tiny NVVM IR module (LLVM 7 text, as libNVVM reads it): x[i] *= a for i < n.
const char* const kNvvmScale =
    R"(target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define void @scale(float addrspace(1)* %x, float %a, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %inside = icmp ult i32 %i, %n
  br i1 %inside, label %body, label %done
body:
  %idx = zext i32 %i to i64
  %p = getelementptr float, float addrspace(1)* %x, i64 %idx
  %v = load float, float addrspace(1)* %p, align 4
  %s = fmul float %v, %a
  store float %s, float addrspace(1)* %p, align 4
  br label %done
done:
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (float addrspace(1)*, float, i32)* @scale, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0}
)";

QString ptxSaxpy() {
    return QString::fromLatin1(kPtxSaxpy);
}

CompileResult compilePtx(const QString& source, const QString& arch = QStringLiteral("sm_90"),
                         const ProgramOptions& options = {}) {
    return Program(source, QStringLiteral("saxpy.ptx"), options, {}, SourceLanguage::Ptx)
        .compile(arch);
}

bool libNvvmFound(QString* where) {
    return !libNvvmVersion(where).isEmpty();
}

} // namespace

class TestPtxProgram : public QObject {
    Q_OBJECT

private slots:
    void handWrittenPtxAssemblesToCubin() {
        const CompileResult r = compilePtx(ptxSaxpy());
        QVERIFY2(r.ok, qPrintable(r.log));
        QCOMPARE(r.language, SourceLanguage::Ptx);
        QVERIFY2(r.compiler.startsWith(QStringLiteral("nvJitLink ")), qPrintable(r.compiler));
        QCOMPARE(r.compiler, QStringLiteral("nvJitLink ") + nvJitLinkVersion());
        QVERIFY(r.cubin.startsWith("\x7f"
                                   "ELF"));
        // The PTX view shows the source itself.
        QCOMPARE(r.ptx, ptxSaxpy());
        QCOMPARE(r.flags.first(), QStringLiteral("-arch=sm_90"));
        QCOMPARE(r.kernels.size(), 1);
        const KernelInfo& k = r.kernels.first();
        QCOMPARE(k.name, QStringLiteral("saxpy"));
        QCOMPARE(k.lowered, QStringLiteral("saxpy"));
        QCOMPARE(k.params.size(), 4);
        QVERIFY(!k.params[0].isPointer);
        QVERIFY(k.params[1].isPointer); // a .u64 is taken for a pointer
        QVERIFY(k.params[2].isPointer);
        QVERIFY(!k.params[3].isPointer);
        // The entry's name is in the CUBIN's symbol table.
        QVERIFY(r.cubin.contains(QByteArrayLiteral("saxpy\0")));
        QCOMPARE(r.errorCount(), 0);
    }

    void ptxErrorsLandOnTheirLines() {
        QString bad = ptxSaxpy();
        bad.replace(QStringLiteral("mov.u32 %r3"), QStringLiteral("movv.u32 %r3")); // line 22
        bad.replace(QStringLiteral("%f2, %f3;"), QStringLiteral("%f2, %q3;"));      // line 34
        const CompileResult r = compilePtx(bad);
        QVERIFY(!r.ok);
        QVERIFY(r.cubin.isEmpty());
        QVERIFY(r.error.isEmpty()); // a source error, not a missing tool
        QVector<int> lines;
        for (const Diagnostic& d : r.diagnostics) {
            if (d.severity == Diagnostic::Severity::Error && d.line > 0) {
                QCOMPARE(d.file, QStringLiteral("saxpy.ptx"));
                lines << d.line;
            }
        }
        QVERIFY2(lines.contains(22), qPrintable(r.log));
        QVERIFY2(lines.contains(34), qPrintable(r.log));
        bool named = false;
        for (const Diagnostic& d : r.diagnostics)
            named = named || (d.line == 22 && d.message.contains(QLatin1String("movv")));
        QVERIFY(named);
    }

    void ptxasLogParsing() {
        const QString log =
            QStringLiteral("ptxas application ptx input, line 12; error   : Unknown symbol '%q3'\n"
                           "ptxas application ptx input, line 7; warning : Unused register\n"
                           "ptxas fatal   : Ptx assembly aborted due to errors\n"
                           "ERROR NVJITLINK_ERROR_PTX_COMPILE: JIT the PTX (k.ptx)\n");
        const QVector<Diagnostic> d = parsePtxasLog(log, QStringLiteral("k.ptx"));
        QCOMPARE(d.size(), 2); // the summaries add nothing to the positioned error
        QCOMPARE(d[0].line, 12);
        QCOMPARE(d[0].severity, Diagnostic::Severity::Error);
        QCOMPARE(d[0].message, QStringLiteral("Unknown symbol '%q3'"));
        QCOMPARE(d[0].file, QStringLiteral("k.ptx"));
        QCOMPARE(d[1].line, 7);
        QCOMPARE(d[1].severity, Diagnostic::Severity::Warning);
        // With nothing positioned, the summaries are all there is.
        const QVector<Diagnostic> only =
            parsePtxasLog(QStringLiteral("ptxas fatal   : Ptx assembly aborted due to errors"),
                          QStringLiteral("k.ptx"));
        QCOMPARE(only.size(), 1);
        QCOMPARE(only[0].line, 0);
    }

    void virtualArchLeavesPtxToTheDriver() {
        const CompileResult r = compilePtx(ptxSaxpy(), QStringLiteral("compute_90"));
        QVERIFY(r.ok);
        QVERIFY(r.cubin.isEmpty()); // the runner loads the PTX through the driver's JIT
        QCOMPARE(r.ptx, ptxSaxpy());
        QCOMPARE(r.kernels.size(), 1);
    }

    void optionsMapAndWarn() {
        ProgramOptions options;
        options.maxRegisters = 32;
        options.lineInfo = true;
        options.defines = {QStringLiteral("N=4")};
        const CompileResult r = compilePtx(ptxSaxpy(), QStringLiteral("sm_90"), options);
        QVERIFY2(r.ok, qPrintable(r.log));
        QVERIFY(r.flags.contains(QStringLiteral("-Xptxas=--maxrregcount=32")));
        QVERIFY(r.flags.contains(QStringLiteral("-lineinfo")));
        bool warned = false;
        for (const Diagnostic& d : r.diagnostics)
            warned = warned || (d.severity == Diagnostic::Severity::Warning &&
                                d.message.contains(QLatin1String("options.defines")));
        QVERIFY(warned);
        // A PTX target newer than the arch is ptxas's error, reported as such.
        QString newer = ptxSaxpy();
        newer.replace(QStringLiteral(".target sm_80"), QStringLiteral(".target sm_100"));
        const CompileResult refused = compilePtx(newer, QStringLiteral("sm_80"));
        QVERIFY(!refused.ok);
        QVERIFY(refused.errorCount() > 0);
    }

    void nvvmIrCompilesToPtxAndCubin() {
        QString where;
        if (!libNvvmFound(&where))
            QSKIP(qPrintable(QStringLiteral("libNVVM not found; looked in: ") + where));
        const CompileResult r = Program(QString::fromLatin1(kNvvmScale), QStringLiteral("scale.ll"),
                                        {}, {}, SourceLanguage::Nvvm)
                                    .compile(QStringLiteral("sm_90"));
        QVERIFY2(r.ok, qPrintable(r.log + r.error));
        QCOMPARE(r.language, SourceLanguage::Nvvm);
        QVERIFY2(r.compiler.startsWith(QStringLiteral("libNVVM ")), qPrintable(r.compiler));
        QVERIFY(r.ptx.contains(QLatin1String(".entry scale")));
        QVERIFY(r.cubin.startsWith("\x7f"
                                   "ELF"));
        QVERIFY(r.flags.contains(QStringLiteral("-arch=compute_90")));
        QVERIFY(r.flags.contains(QStringLiteral("-arch=sm_90")));
        QCOMPARE(r.kernels.size(), 1);
        QCOMPARE(r.kernels.first().name, QStringLiteral("scale"));
        QCOMPARE(r.kernels.first().params.size(), 3);
        QVERIFY(r.kernels.first().params[0].isPointer);

        // An error has its line and column.
        QString bad = QString::fromLatin1(kNvvmScale);
        bad.replace(QStringLiteral("define void @scale(float addrspace(1)*"),
                    QStringLiteral("define void @scale(flaot addrspace(1)*"));
        const CompileResult failed =
            Program(bad, QStringLiteral("scale.ll"), {}, {}, SourceLanguage::Nvvm)
                .compile(QStringLiteral("sm_90"));
        QVERIFY(!failed.ok);
        bool positioned = false;
        for (const Diagnostic& d : failed.diagnostics)
            positioned =
                positioned || (d.line == 8 && d.column > 0 && d.file == QStringLiteral("scale.ll"));
        QVERIFY2(positioned, qPrintable(failed.log));
    }

    void nvvmLogParsing() {
        const QVector<Diagnostic> d =
            parseNvvmLog(QStringLiteral("k.ll (8, 19): parse expected type\n"));
        QCOMPARE(d.size(), 1);
        QCOMPARE(d[0].file, QStringLiteral("k.ll"));
        QCOMPARE(d[0].line, 8);
        QCOMPARE(d[0].column, 19);
        QCOMPARE(d[0].message, QStringLiteral("parse expected type"));
    }

    void languageRoundTripsInKpad() {
        Project p;
        p.source = ptxSaxpy();
        p.sourceName = QStringLiteral("saxpy.ptx");
        p.kernel = QStringLiteral("saxpy");
        p.language = SourceLanguage::Ptx;
        const QJsonObject json = p.toJson();
        QCOMPARE(json.value(QLatin1String("language")).toString(), QStringLiteral("ptx"));
        QString error;
        const std::optional<Project> back = Project::fromJson(
            QJsonDocument::fromJson(QJsonDocument(json).toJson()).object(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->language, SourceLanguage::Ptx);
        QVERIFY(*back == p);

        // CUDA C++ writes no field, so older files stay byte for byte the same.
        p.language = SourceLanguage::Cuda;
        QVERIFY(!p.toJson().contains(QLatin1String("language")));

        QJsonObject wrong = json;
        wrong.insert(QStringLiteral("language"), QStringLiteral("fortran"));
        QVERIFY(!Project::fromJson(wrong, &error));
        QVERIFY2(error.startsWith(QStringLiteral("language:")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("cuda, ptx, nvvm")), qPrintable(error));
        wrong.insert(QStringLiteral("language"), 3);
        QVERIFY(!Project::fromJson(wrong, &error));
        QVERIFY2(error.contains(QLatin1String("language")), qPrintable(error));
        // The run history names a change of language.
        Project asCuda = p;
        asCuda.language = SourceLanguage::Cuda;
        p.language = SourceLanguage::Ptx;
        QVERIFY2(describeProjectChanges(asCuda, p).contains(QStringLiteral("language cuda→ptx")),
                 qPrintable(describeProjectChanges(asCuda, p)));
        // No name expressions for PTX: the entry is named as it is.
        p.language = SourceLanguage::Ptx;
        p.kernel = QStringLiteral("fill<float>");
        QVERIFY(p.nameExpressions().isEmpty());
    }

    void cacheKeepsLanguagesApart() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        CompileCache cache(8, QString()); // memory only
        Project ptx;
        ptx.source = ptxSaxpy();
        ptx.sourceName = QStringLiteral("saxpy.ptx");
        ptx.kernel = QStringLiteral("saxpy");
        ptx.language = SourceLanguage::Ptx;
        const CompileResult first =
            compileProject(ptx, dir.path(), QStringLiteral("sm_90"), &cache);
        QVERIFY(first.ok);
        QVERIFY(!first.cacheHit);
        const CompileResult again =
            compileProject(ptx, dir.path(), QStringLiteral("sm_90"), &cache);
        QVERIFY(again.cacheHit);
        QCOMPARE(again.cubin, first.cubin);
        QCOMPARE(again.language, SourceLanguage::Ptx);
        QCOMPARE(again.compiler, first.compiler);
        // The same text as CUDA C++ is another compile (and fails: it is not C++).
        Project cuda = ptx;
        cuda.language = SourceLanguage::Cuda;
        const CompileResult asCuda =
            compileProject(cuda, dir.path(), QStringLiteral("sm_90"), &cache);
        QVERIFY(!asCuda.cacheHit);
        QVERIFY(!asCuda.ok);
        // The result survives the trip to and from the runner.
        QString error;
        const std::optional<CompileResult> sent = CompileResult::fromJson(first.toJson(), &error);
        QVERIFY2(sent, qPrintable(error));
        QCOMPARE(sent->language, SourceLanguage::Ptx);
        QCOMPARE(sent->compiler, first.compiler);
    }

    void projectFromPtxFile() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("saxpy.ptx"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(kPtxSaxpy);
        file.close();
        QString error;
        const std::optional<Project> p = projectFromSourceFile(path, {}, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->language, SourceLanguage::Ptx);
        QCOMPARE(p->kernel, QStringLiteral("saxpy"));
        QCOMPARE(p->sourceName, QStringLiteral("saxpy.ptx"));
        QCOMPARE(p->arguments.size(), 4);
        QCOMPARE(p->arguments[0].name, QStringLiteral("a"));
        QVERIFY(p->arguments[0].isScalar());
        QCOMPARE(p->arguments[1].name, QStringLiteral("x"));
        QVERIFY(p->arguments[1].isBuffer());
        QCOMPARE(p->arguments[1].buffer.elementType, ValueType::of(ScalarType::Float32));
        QCOMPARE(p->arguments[3].name, QStringLiteral("n"));
        QVERIFY(p->arguments[3].isScalar());
        QCOMPARE(p->arguments[1].buffer.count, QStringLiteral("n"));
        QVERIFY2(p->description.contains(QLatin1String("guess")), qPrintable(p->description));
        QVERIFY(p->launch.grid[0] > 0);
        QVERIFY(!projectFromSourceFile(path, QStringLiteral("missing"), &error));
        QVERIFY2(error.contains(QLatin1String("saxpy")), qPrintable(error));
    }

    void ptxArgumentsKeptByPlace() {
        // After a compile the table keeps what the user set when the PTX has the same
        // parameters, even though the PTX names do not match the argument names.
        const CompileResult r = compilePtx(ptxSaxpy());
        QVERIFY(r.ok);
        QVector<ArgumentSpec> previous = argumentsForKernel(r.kernels.first(), r.ptx, {});
        QCOMPARE(previous.size(), 4);
        previous[0].name = QStringLiteral("alpha");
        previous[0].value = QStringLiteral("3.5");
        const QVector<ArgumentSpec> synced = argumentsForKernel(r.kernels.first(), r.ptx, previous);
        QCOMPARE(synced[0].name, QStringLiteral("alpha"));
        QCOMPARE(synced[0].value, QStringLiteral("3.5"));
        // A size that no longer fits is not kept.
        previous[0].type = ValueType::of(ScalarType::Float64);
        previous[0].name = QStringLiteral("alpha");
        const QVector<ArgumentSpec> refitted =
            argumentsForKernel(r.kernels.first(), r.ptx, previous);
        QCOMPARE(refitted[0].name, QStringLiteral("a"));
        QCOMPARE(refitted[0].type, ValueType::of(ScalarType::Float32));
    }

    void parameterNames() {
        QCOMPARE(ptxParameterName(QStringLiteral("saxpy"), QStringLiteral("saxpy_x")),
                 QStringLiteral("x"));
        QCOMPARE(ptxParameterName(QStringLiteral("scale"), QStringLiteral("scale_param_0")),
                 QString());
        QCOMPARE(ptxParameterName(QStringLiteral("_Z5saxpyfPfi"),
                                  QStringLiteral("_Z5saxpyfPfi_param_1")),
                 QString());
        QVERIFY(ptxNameLooksLikeCount(QStringLiteral("n")));
        QVERIFY(ptxNameLooksLikeCount(QStringLiteral("num_items")));
        QVERIFY(!ptxNameLooksLikeCount(QStringLiteral("out")));
        QVERIFY(!ptxNameLooksLikeCount(QStringLiteral("x")));
    }

    void shippedExampleAssembles() {
        QString error;
        const std::optional<Project> p =
            Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/ptx_saxpy.kpad"), &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->language, SourceLanguage::Ptx);
        const CompileResult r = compileProject(*p, QStringLiteral(KERNELPAD_EXAMPLES_DIR),
                                               QStringLiteral("sm_90"), nullptr);
        QVERIFY2(r.ok, qPrintable(r.log));
        QCOMPARE(r.diagnostics.size(), 0); // nothing ignored, nothing warned
        const KernelInfo* k = r.findKernel(p->kernel);
        QVERIFY(k);
        QCOMPARE(k->params.size(), p->arguments.size());
        // The table the project carries fits the PTX exactly.
        QVERIFY(sameArguments(argumentsForKernel(*k, p->source, p->arguments), p->arguments));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestPtxProgram)
} // namespace tst_ptxprogram
#include "tst_ptxprogram.moc"

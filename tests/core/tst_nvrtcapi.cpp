// NVRTC and nvJitLink are loaded at run time: here, with the toolkit installed, both
// load from the default search and compile; and neither program names them in its ELF dynamic
// section, so a computer without the toolkit can start KernelPad (a return to load-time linking
// fails here).

#include "core/compile/NvrtcApi.h"
#include "core/compile/Program.h"
#include "core/compile/PtxAssembler.h"
#include "core/runner/RunnerSpec.h"

#include "TestPaths.h"
#include <QFile>
#include <QFileInfo>
#include <QtTest>

#include <optional>

using namespace kernelpad;

namespace {

// ELF64 constants (elf.h names), for the little-endian x86-64 and aarch64 builds KernelPad has.
constexpr quint32 kPtLoad = 1;
constexpr quint32 kPtDynamic = 2;
constexpr qint64 kDtNull = 0;
constexpr qint64 kDtNeeded = 1;
constexpr qint64 kDtStrtab = 5;
constexpr int kElfHeaderBytes = 64;
constexpr int kProgramHeaderBytes = 56;
constexpr int kDynamicEntryBytes = 16;

/// The little-endian T at `offset` of `bytes`; zero when it does not fit.
template <typename T> T readAt(const QByteArray& bytes, qint64 offset) {
    if (offset < 0 || offset + qint64(sizeof(T)) > bytes.size())
        return T{};
    quint64 value = 0;
    for (qint64 i = qint64(sizeof(T)) - 1; i >= 0; --i)
        value = (value << 8) | quint8(bytes.at(offset + i));
    return T(value);
}

/// Reads `size` bytes at `offset` of `file`; empty when the file is shorter.
QByteArray readRange(QFile& file, qint64 offset, qint64 size) {
    if (offset < 0 || size < 0 || !file.seek(offset))
        return {};
    QByteArray bytes = file.read(size);
    return bytes.size() == size ? bytes : QByteArray();
}

/// The DT_NEEDED entries of an ELF64 little-endian executable, read from its PT_DYNAMIC
/// segment and the string table DT_STRTAB points at (a virtual address, mapped through the
/// PT_LOAD segments); nullopt with `error` when the file is not such an ELF.
std::optional<QStringList> neededLibraries(const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return std::nullopt;
    }
    const QByteArray header = readRange(file, 0, kElfHeaderBytes);
    if (!header.startsWith("\x7f"
                           "ELF") ||
        header.at(4) != 2 /* ELFCLASS64 */ || header.at(5) != 1 /* ELFDATA2LSB */) {
        *error = QStringLiteral("not a 64-bit little-endian ELF file");
        return std::nullopt;
    }
    const auto phoff = readAt<quint64>(header, 32);
    const auto phentsize = readAt<quint16>(header, 54);
    const auto phnum = readAt<quint16>(header, 56);
    if (phentsize < kProgramHeaderBytes) {
        *error = QStringLiteral("program headers of %1 bytes").arg(phentsize);
        return std::nullopt;
    }
    const QByteArray programHeaders = readRange(file, qint64(phoff), qint64(phentsize) * phnum);
    struct Load {
        quint64 offset, vaddr, size;
    };
    QVector<Load> loads;
    quint64 dynamicOffset = 0, dynamicSize = 0;
    for (int i = 0; i < phnum; ++i) {
        const qint64 at = qint64(i) * phentsize;
        const auto type = readAt<quint32>(programHeaders, at);
        const auto offset = readAt<quint64>(programHeaders, at + 8);
        const auto vaddr = readAt<quint64>(programHeaders, at + 16);
        const auto fileSize = readAt<quint64>(programHeaders, at + 32);
        if (type == kPtLoad)
            loads.append({offset, vaddr, fileSize});
        if (type == kPtDynamic) {
            dynamicOffset = offset;
            dynamicSize = fileSize;
        }
    }
    if (dynamicSize == 0) {
        *error = QStringLiteral("no PT_DYNAMIC segment (a static executable?)");
        return std::nullopt;
    }
    const QByteArray dynamic = readRange(file, qint64(dynamicOffset), qint64(dynamicSize));
    QVector<quint64> neededOffsets;
    quint64 strtabAddress = 0;
    for (qint64 at = 0; at + kDynamicEntryBytes <= dynamic.size(); at += kDynamicEntryBytes) {
        const auto tag = readAt<qint64>(dynamic, at);
        const auto value = readAt<quint64>(dynamic, at + 8);
        if (tag == kDtNull)
            break;
        if (tag == kDtNeeded)
            neededOffsets.append(value);
        if (tag == kDtStrtab)
            strtabAddress = value;
    }
    qint64 strtabOffset = -1;
    for (const Load& load : std::as_const(loads)) {
        if (strtabAddress >= load.vaddr && strtabAddress < load.vaddr + load.size)
            strtabOffset = qint64(strtabAddress - load.vaddr + load.offset);
    }
    if (strtabOffset < 0) {
        *error =
            QStringLiteral("DT_STRTAB 0x%1 is in no PT_LOAD segment").arg(strtabAddress, 0, 16);
        return std::nullopt;
    }
    constexpr qint64 kLongestName = 4096;
    QStringList names;
    for (const quint64 offset : std::as_const(neededOffsets)) {
        if (!file.seek(strtabOffset + qint64(offset))) {
            *error = QStringLiteral("a DT_NEEDED name beyond the end of the file");
            return std::nullopt;
        }
        const QByteArray bytes = file.read(kLongestName);
        names << QString::fromLatin1(bytes.left(bytes.indexOf('\0')));
    }
    return names;
}

} // namespace

class TestNvrtcApi : public QObject {
    Q_OBJECT
private slots:
    void nvrtcLoadsFromTheDefaultSearch();
    void nvJitLinkLoadsFromTheDefaultSearch();
    void compilesThroughTheLoadedLibraries();
    void programsDoNotNeedTheToolkitToStart_data();
    void programsDoNotNeedTheToolkitToStart();
};

void TestNvrtcApi::nvrtcLoadsFromTheDefaultSearch() {
    if (!qEnvironmentVariableIsEmpty("KERNELPAD_NVRTC_LIBRARY"))
        QSKIP("$KERNELPAD_NVRTC_LIBRARY is set: this test is of the default search");
    QString error;
    const NvrtcApi* api = NvrtcApi::load(&error);
    QVERIFY2(api, qPrintable(error));
    QVERIFY2(QFileInfo(api->path).fileName().startsWith(QLatin1String("libnvrtc.so.")),
             qPrintable(api->path));
    QVERIFY2(QFileInfo::exists(api->path), qPrintable(api->path));
    int major = 0;
    int minor = -1;
    QCOMPARE(api->nvrtcVersion(&major, &minor), NVRTC_SUCCESS);
    QVERIFY2(major >= 12 && minor >= 0, qPrintable(QStringLiteral("%1.%2").arg(major).arg(minor)));
    QCOMPARE(Program::nvrtcVersion(), QStringLiteral("%1.%2").arg(major).arg(minor));
    QCOMPARE(QString::fromUtf8(api->nvrtcGetErrorString(NVRTC_ERROR_INVALID_OPTION)),
             QStringLiteral("NVRTC_ERROR_INVALID_OPTION"));
    QCOMPARE(NvrtcApi::load(), api); // loaded once
    QVERIFY(!nvrtcUnavailableHere() ||
            qEnvironmentVariable("KERNELPAD_NO_NVRTC") == QLatin1String("1"));
}

void TestNvrtcApi::nvJitLinkLoadsFromTheDefaultSearch() {
    if (!qEnvironmentVariableIsEmpty("KERNELPAD_NVJITLINK_LIBRARY"))
        QSKIP("$KERNELPAD_NVJITLINK_LIBRARY is set: this test is of the default search");
    QString error;
    const NvJitLinkApi* api = NvJitLinkApi::load(&error);
    QVERIFY2(api, qPrintable(error));
    QVERIFY2(QFileInfo(api->path).fileName().startsWith(QLatin1String("libnvJitLink.so.")),
             qPrintable(api->path));
    unsigned major = 0;
    unsigned minor = 0;
    QCOMPARE(api->version(&major, &minor), NVJITLINK_SUCCESS);
    QVERIFY(major >= 13);
    QCOMPARE(nvJitLinkVersion(), QStringLiteral("%1.%2").arg(major).arg(minor));
    QCOMPARE(Program::compilerOf(SourceLanguage::Ptx),
             QStringLiteral("nvJitLink ") + nvJitLinkVersion());
}

void TestNvrtcApi::compilesThroughTheLoadedLibraries() {
    const CompileResult cuda =
        Program(QStringLiteral("extern \"C\" __global__ void k(float* p) { p[0] = 1.0f; }"),
                QStringLiteral("k.cu"), {})
            .compile(QStringLiteral("sm_90"));
    QVERIFY2(cuda.ok, qPrintable(cuda.log + cuda.error));
    QVERIFY(!cuda.compilerMissing);
    QVERIFY(!cuda.cubin.isEmpty());
    // The PTX NVRTC gave, assembled again by nvJitLink.
    const CompileResult ptx =
        Program(cuda.ptx, QStringLiteral("k.ptx"), {}, {}, SourceLanguage::Ptx)
            .compile(QStringLiteral("sm_90"));
    QVERIFY2(ptx.ok, qPrintable(ptx.log + ptx.error));
    QVERIFY(!ptx.cubin.isEmpty());
    QVERIFY(ptx.findKernel(QStringLiteral("k")));
}

void TestNvrtcApi::programsDoNotNeedTheToolkitToStart_data() {
    QTest::addColumn<QString>("path");
    const QString cli = QStringLiteral(KERNELPAD_CLI_PATH);
    QTest::newRow("kernelpad-cli") << cli;
    QTest::newRow("kernelpad") << QFileInfo(cli).absolutePath() + QStringLiteral("/kernelpad");
}

void TestNvrtcApi::programsDoNotNeedTheToolkitToStart() {
    QFETCH(QString, path);
    if (!QFileInfo::exists(path) && !path.endsWith(QLatin1String("-cli")))
        QSKIP("built without the window (KERNELPAD_GUI=OFF)");
    QString error;
    const std::optional<QStringList> needed = neededLibraries(path, &error);
    QVERIFY2(needed, qPrintable(path + QStringLiteral(": ") + error));
    // The reader works: Qt is linked at load time, as it should be.
    QVERIFY2(needed->contains(QStringLiteral("libQt6Core.so.6")),
             qPrintable(needed->join(QStringLiteral(", "))));
    for (const QString& library : *needed) {
        QVERIFY2(!library.startsWith(QLatin1String("libnvrtc")) &&
                     !library.startsWith(QLatin1String("libnvJitLink")) &&
                     !library.startsWith(QLatin1String("libnvvm")) &&
                     !library.startsWith(QLatin1String("libcuda")),
                 qPrintable(QStringLiteral("%1 needs %2 at load time: a computer without the CUDA "
                                           "toolkit could not start it")
                                .arg(QFileInfo(path).fileName(), library)));
    }
}

QTEST_GUILESS_MAIN(TestNvrtcApi)
#include "tst_nvrtcapi.moc"

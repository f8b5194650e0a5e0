#pragma once
// The ELF dynamic section of a program, read without binutils (tests/core/tst_nvrtcapi.cpp:
// what it needs at load time; tests/core/tst_binaryrpath.cpp: where it looks for libraries).

#include <QFile>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad::test {

/// What a program's PT_DYNAMIC segment says about loading libraries.
struct ElfDynamic {
    QStringList needed;      ///< DT_NEEDED, in order
    bool hasRpath = false;   ///< a DT_RPATH entry exists
    QString rpath;           ///< its colon-separated folders
    bool hasRunpath = false; ///< a DT_RUNPATH entry exists
    QString runpath;         ///< its colon-separated folders
};

namespace elf {

// ELF64 constants (elf.h names), for the little-endian x86-64 and aarch64 builds KernelPad has.
constexpr quint32 kPtLoad = 1;
constexpr quint32 kPtDynamic = 2;
constexpr qint64 kDtNull = 0;
constexpr qint64 kDtNeeded = 1;
constexpr qint64 kDtStrtab = 5;
constexpr qint64 kDtRpath = 15;
constexpr qint64 kDtRunpath = 29;
constexpr int kElfHeaderBytes = 64;
constexpr int kProgramHeaderBytes = 56;
constexpr int kDynamicEntryBytes = 16;
constexpr qint64 kLongestString = 65536;

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
inline QByteArray readRange(QFile& file, qint64 offset, qint64 size) {
    if (offset < 0 || size < 0 || !file.seek(offset))
        return {};
    QByteArray bytes = file.read(size);
    return bytes.size() == size ? bytes : QByteArray();
}

} // namespace elf

/// True when `path` starts with the ELF magic (a script or data file is not a program).
inline bool isElfFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) && file.read(4) == QByteArray("\x7f"
                                                                        "ELF");
}

/// The dynamic section of an ELF64 little-endian program, read from its PT_DYNAMIC segment and
/// the string table DT_STRTAB points at (a virtual address, mapped through the PT_LOAD
/// segments); nullopt with `error` when the file is not such an ELF.
inline std::optional<ElfDynamic> readElfDynamic(const QString& path, QString* error) {
    using namespace elf;
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
    std::optional<quint64> rpathOffset, runpathOffset;
    quint64 strtabAddress = 0;
    for (qint64 at = 0; at + kDynamicEntryBytes <= dynamic.size(); at += kDynamicEntryBytes) {
        const auto tag = readAt<qint64>(dynamic, at);
        const auto value = readAt<quint64>(dynamic, at + 8);
        if (tag == kDtNull)
            break;
        if (tag == kDtNeeded)
            neededOffsets.append(value);
        if (tag == kDtRpath)
            rpathOffset = value;
        if (tag == kDtRunpath)
            runpathOffset = value;
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
    const auto stringAt = [&](quint64 offset, QString* out) {
        if (!file.seek(strtabOffset + qint64(offset))) {
            *error = QStringLiteral("a dynamic string beyond the end of the file");
            return false;
        }
        const QByteArray bytes = file.read(kLongestString);
        const qsizetype end = bytes.indexOf('\0');
        if (end < 0) {
            *error = QStringLiteral("a dynamic string without its end");
            return false;
        }
        *out = QString::fromLatin1(bytes.left(end));
        return true;
    };
    ElfDynamic d;
    for (const quint64 offset : std::as_const(neededOffsets)) {
        QString name;
        if (!stringAt(offset, &name))
            return std::nullopt;
        d.needed << name;
    }
    d.hasRpath = rpathOffset.has_value();
    d.hasRunpath = runpathOffset.has_value();
    if ((rpathOffset && !stringAt(*rpathOffset, &d.rpath)) ||
        (runpathOffset && !stringAt(*runpathOffset, &d.runpath)))
        return std::nullopt;
    return d;
}

/// The entries of a DT_RPATH/DT_RUNPATH value that make the loader search a folder that
/// depends on where the program was started: empty entries (the current directory), relative
/// ones, and any with a `.` or `..` component. `$ORIGIN` entries are the program's own folder,
/// not the current one, and pass.
inline QStringList unsafeSearchEntries(const QString& searchPath) {
    QStringList unsafe;
    // The loader splits on ':' and also on ';' (elf/dl-load.c, fillin_rpath).
    const QStringList entries = searchPath.split(QRegularExpression(QStringLiteral("[:;]")));
    for (const QString& entry : entries) {
        const bool origin = entry.startsWith(QLatin1String("$ORIGIN")) ||
                            entry.startsWith(QLatin1String("${ORIGIN}"));
        const QStringList parts = entry.split(QLatin1Char('/'));
        const bool dots =
            parts.contains(QStringLiteral(".")) || parts.contains(QStringLiteral(".."));
        if (entry.isEmpty() || (!entry.startsWith(QLatin1Char('/')) && !origin) ||
            (dots && !origin))
            unsafe << (entry.isEmpty() ? QStringLiteral("(empty: the current directory)") : entry);
    }
    return unsafe;
}

} // namespace kernelpad::test

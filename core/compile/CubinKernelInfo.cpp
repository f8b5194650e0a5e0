#include "core/compile/CubinKernelInfo.h"

#include <QHash>
#include <QVector>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace kernelpad {

namespace {

// ELF64 layout (System V gABI): the fields read here and their offsets.
constexpr int kElfHeaderBytes = 64;
constexpr int kSectionHeaderBytes = 64;
constexpr char kElfMagic[] = "\x7f"
                             "ELF";
constexpr quint8 kElfClass64 = 2;
constexpr int kShoffOffset = 0x28;
constexpr int kShentsizeOffset = 0x3a;
constexpr quint32 kSymtabType = 2;
constexpr int kSymbolBytes = 24;

// .nv.info records: a format byte, an attribute byte, then by format two bytes (EIFMT_NVAL:
// unused, EIFMT_BVAL: a byte and padding, EIFMT_HVAL: a 16-bit value), or a 16-bit size and
// that many bytes (EIFMT_SVAL); every record keeps 4-byte alignment. Attribute numbers as cuobjdump
// -elf names them; checked against ptxas -v in tests/core/tst_cubinkernelinfo.
constexpr quint8 kFormatNone = 1;
constexpr quint8 kFormatByte = 2;
constexpr quint8 kFormatHalf = 3;
constexpr quint8 kFormatSized = 4;
constexpr quint8 kAttrMaxThreads = 0x05;
constexpr quint8 kAttrRegCount = 0x2f;
constexpr quint8 kAttrFrameSize = 0x11;
constexpr quint8 kAttrNumBarriers = 0x4c;

struct Section {
    QByteArray name;
    quint32 type = 0;
    quint64 offset = 0;
    quint64 size = 0;
    quint32 link = 0;
};

template <typename T> bool read(const QByteArray& data, quint64 offset, T* value) {
    if (offset > quint64(data.size()) || quint64(data.size()) - offset < sizeof(T))
        return false;
    std::memcpy(value, data.constData() + offset, sizeof(T));
    return true;
}

QVector<Section> sections(const QByteArray& elf) {
    QVector<Section> result;
    if (elf.size() < kElfHeaderBytes || std::memcmp(elf.constData(), kElfMagic, 4) != 0 ||
        quint8(elf[4]) != kElfClass64)
        return result;
    quint64 shoff = 0;
    quint16 shentsize = 0, shnum = 0, shstrndx = 0;
    if (!read(elf, kShoffOffset, &shoff) || !read(elf, kShentsizeOffset, &shentsize) ||
        !read(elf, kShentsizeOffset + 2, &shnum) || !read(elf, kShentsizeOffset + 4, &shstrndx) ||
        shentsize < kSectionHeaderBytes)
        return result;
    QVector<quint32> nameOffsets;
    for (quint16 i = 0; i < shnum; ++i) {
        const quint64 at = shoff + quint64(i) * shentsize;
        Section s;
        quint32 nameOffset = 0;
        if (!read(elf, at, &nameOffset) || !read(elf, at + 4, &s.type) ||
            !read(elf, at + 0x18, &s.offset) || !read(elf, at + 0x20, &s.size) ||
            !read(elf, at + 0x28, &s.link))
            return {};
        nameOffsets.push_back(nameOffset);
        result.push_back(s);
    }
    if (shstrndx >= result.size())
        return {};
    const Section& names = result[shstrndx];
    for (int i = 0; i < result.size(); ++i) {
        const quint64 at = names.offset + nameOffsets[i];
        if (at >= quint64(elf.size()) || nameOffsets[i] >= names.size)
            continue;
        const char* start = elf.constData() + at;
        const qsizetype limit =
            qsizetype(std::min<quint64>(names.size - nameOffsets[i], quint64(elf.size()) - at));
        result[i].name = QByteArray(start, qsizetype(qstrnlen(start, uint(limit))));
    }
    return result;
}

QByteArray bytesOf(const QByteArray& elf, const Section& s) {
    if (s.offset > quint64(elf.size()) || s.size > quint64(elf.size()) - s.offset)
        return {};
    return elf.mid(qsizetype(s.offset), qsizetype(s.size));
}

/// Calls `visit(attribute, payload)` for every record of an .nv.info section.
template <typename Visit> void forEachRecord(const QByteArray& info, Visit visit) {
    qsizetype at = 0;
    while (at + 2 <= info.size()) {
        const quint8 format = quint8(info[at]);
        const quint8 attribute = quint8(info[at + 1]);
        at += 2;
        qsizetype size = 0;
        if (format == kFormatNone || format == kFormatByte || format == kFormatHalf) {
            size = 2;
        } else if (format == kFormatSized) {
            quint16 n = 0;
            if (!read(info, quint64(at), &n))
                return;
            at += 2;
            size = n;
        } else {
            return; // an unknown format: its length cannot be known
        }
        if (at + size > info.size())
            return;
        visit(attribute, info.mid(at, size));
        at += size;
    }
}

/// The symbol-table index of the function `name`, -1 when absent.
int symbolIndex(const QByteArray& elf, const QVector<Section>& all, const QByteArray& name) {
    for (const Section& s : all) {
        if (s.type != kSymtabType || s.link >= quint32(all.size()))
            continue;
        const QByteArray table = bytesOf(elf, s);
        const QByteArray strings = bytesOf(elf, all[int(s.link)]);
        for (qsizetype at = 0, i = 0; at + kSymbolBytes <= table.size(); at += kSymbolBytes, ++i) {
            quint32 nameOffset = 0;
            std::memcpy(&nameOffset, table.constData() + at, sizeof(nameOffset));
            if (nameOffset >= quint32(strings.size()))
                continue;
            const char* start = strings.constData() + nameOffset;
            const auto length = qstrnlen(start, uint(strings.size() - qsizetype(nameOffset)));
            if (QByteArray::fromRawData(start, qsizetype(length)) == name)
                return int(i);
        }
    }
    return -1;
}

} // namespace

CubinKernelInfo cubinKernelInfo(const QByteArray& cubin, const QString& lowered) {
    CubinKernelInfo info;
    const QVector<Section> all = sections(cubin);
    const QByteArray name = lowered.toUtf8();
    const int symbol = symbolIndex(cubin, all, name);
    if (symbol < 0)
        return info;
    for (const Section& s : all) {
        if (s.name == ".nv.info") {
            // Module-wide records name their function by its symbol index.
            forEachRecord(bytesOf(cubin, s), [&](quint8 attribute, const QByteArray& payload) {
                quint32 function = 0, value = 0;
                if ((attribute != kAttrRegCount && attribute != kAttrFrameSize) ||
                    !read(payload, 0, &function) || !read(payload, 4, &value) ||
                    function != quint32(symbol))
                    return;
                const int clamped =
                    int(std::min<quint64>(value, quint64(std::numeric_limits<int>::max())));
                if (attribute == kAttrFrameSize) {
                    info.frameBytes = clamped;
                    return;
                }
                info.registers = clamped;
                info.found = true;
            });
        } else if (s.name == ".nv.info." + name) {
            forEachRecord(bytesOf(cubin, s), [&](quint8 attribute, const QByteArray& payload) {
                if (attribute == kAttrNumBarriers && !payload.isEmpty()) {
                    info.barriers = quint8(payload[0]);
                } else if (attribute == kAttrMaxThreads) {
                    quint32 x = 0, y = 0, z = 0;
                    if (read(payload, 0, &x) && read(payload, 4, &y) && read(payload, 8, &z))
                        info.maxThreadsPerBlock = int(std::min<quint64>(
                            quint64(x) * y * z, quint64(std::numeric_limits<int>::max())));
                }
            });
        }
    }
    return info;
}

} // namespace kernelpad

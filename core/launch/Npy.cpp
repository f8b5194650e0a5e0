#include "core/launch/Npy.h"

#include "core/io/ErrorOut.h"
#include "core/io/SafeFile.h"
#include "core/launch/BufferInit.h"

#include <QDir>
#include <QFile>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kernelpad {

namespace {

// Format reference: numpy/lib/format.py ("NPY format"): magic, version, header length
// (uint16 for 1.0, uint32 for 2.0/3.0), an ASCII (3.0: UTF-8) Python dict literal padded with
// spaces and ended by '\n' so that the data starts at a multiple of 64 bytes.
constexpr char kMagic[] = "\x93NUMPY";
constexpr int kMagicBytes = 6;
constexpr int kAlignBytes = 64;
// Bounds that keep a hostile header from costing time or memory (NumPy allows 32 dims).
constexpr int kMaxDims = 64;
constexpr qint64 kMaxHeaderBytes = qint64(1) << 20;
/// Magic, version and the longest (4-byte) header length.
constexpr qint64 kMaxPrefixBytes = kMagicBytes + 2 + 4;

struct DescrRow {
    const char* code; // without the byte-order character
    ScalarType type;
};

const DescrRow kDescrs[] = {
    {"b1", ScalarType::Bool},
    {"i1", ScalarType::Int8},
    {"i2", ScalarType::Int16},
    {"i4", ScalarType::Int32},
    {"i8", ScalarType::Int64},
    {"u1", ScalarType::UInt8},
    {"u2", ScalarType::UInt16},
    {"u4", ScalarType::UInt32},
    {"u8", ScalarType::UInt64},
    {"f2", ScalarType::Float16},
    {"f4", ScalarType::Float32},
    {"f8", ScalarType::Float64},
    {"c8", ScalarType::Complex64},
    {"c16", ScalarType::Complex128},
    // np.save of an ml_dtypes array writes a void descr ("<V2" for bfloat16, "<V1" for
    // float8_e4m3fn) or, for float8_e5m2, "<f1"; some tools write the ml_dtypes name. A
    // void descr stands for any low-precision type of its size (readNpy takes the buffer's).
    {"V2", ScalarType::BFloat16},
    {"V1", ScalarType::Float8E4M3},
    {"f1", ScalarType::Float8E5M2},
    {"bfloat16", ScalarType::BFloat16},
    {"float8_e4m3fn", ScalarType::Float8E4M3},
    {"float8_e5m2", ScalarType::Float8E5M2},
};

/// True when `descr` is a void (or e5m2's "f1") descr, which says only the element size.
bool isSizeOnlyDescr(const QString& descr) {
    const QString code = descr.mid(1);
    return code == QLatin1String("V1") || code == QLatin1String("V2") ||
           code == QLatin1String("f1");
}

/// A reader for the small subset of Python literals NumPy writes in the header.
class HeaderParser {
public:
    explicit HeaderParser(const QString& text)
        : m_text(text) {}

    void skipSpace() {
        while (m_pos < m_text.size() && m_text.at(m_pos).isSpace())
            ++m_pos;
    }
    bool accept(QChar c) {
        skipSpace();
        if (m_pos < m_text.size() && m_text.at(m_pos) == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    bool atEnd() {
        skipSpace();
        return m_pos >= m_text.size();
    }
    std::optional<QString> string() {
        skipSpace();
        if (m_pos >= m_text.size())
            return std::nullopt;
        const QChar quote = m_text.at(m_pos);
        if (quote != QLatin1Char('\'') && quote != QLatin1Char('"'))
            return std::nullopt;
        const qsizetype end = m_text.indexOf(quote, m_pos + 1);
        if (end < 0)
            return std::nullopt;
        const QString s = m_text.mid(m_pos + 1, end - m_pos - 1);
        m_pos = end + 1;
        return s;
    }
    std::optional<bool> boolean() {
        skipSpace();
        for (const bool value : {true, false}) {
            const QLatin1String word(value ? "True" : "False");
            if (QStringView(m_text).mid(m_pos).startsWith(word)) {
                m_pos += word.size();
                return value;
            }
        }
        return std::nullopt;
    }
    std::optional<qint64> integer() {
        skipSpace();
        qint64 value = 0;
        const qsizetype start = m_pos;
        while (m_pos < m_text.size() && m_text.at(m_pos).isDigit()) {
            const int digit = m_text.at(m_pos).digitValue();
            if (digit < 0 || value > (std::numeric_limits<qint64>::max() - digit) / 10)
                return std::nullopt;
            value = value * 10 + digit;
            ++m_pos;
        }
        // Python 2 era NumPy wrote "16L" for longs.
        if (m_pos > start && m_pos < m_text.size() && m_text.at(m_pos) == QLatin1Char('L'))
            ++m_pos;
        return m_pos > start ? std::optional<qint64>(value) : std::nullopt;
    }
    /// "()", "(16,)", "(2, 3)"; a dimension list of non-negative integers.
    std::optional<QVector<qint64>> shape() {
        if (!accept(QLatin1Char('(')))
            return std::nullopt;
        QVector<qint64> dims;
        while (!accept(QLatin1Char(')'))) {
            const auto dim = integer();
            if (!dim || dims.size() >= kMaxDims)
                return std::nullopt;
            dims.append(*dim);
            if (!accept(QLatin1Char(','))) {
                if (!accept(QLatin1Char(')')))
                    return std::nullopt;
                break;
            }
        }
        return dims;
    }

private:
    QString m_text;
    qsizetype m_pos = 0;
};

std::optional<ScalarType> typeFromDescr(const QString& descr, QString* error) {
    if (descr.isEmpty()) {
        fail(error, QStringLiteral("empty dtype"));
        return std::nullopt;
    }
    const QChar order = descr.front();
    if (order == QLatin1Char('>')) {
        fail(error, QStringLiteral("dtype '%1' is big-endian, which is not supported (save it "
                                   "little-endian, e.g. with a.astype('<%2'))")
                        .arg(descr, descr.mid(1)));
        return std::nullopt;
    }
    const QString code =
        (order == QLatin1Char('<') || order == QLatin1Char('|') || order == QLatin1Char('='))
            ? descr.mid(1)
            : descr;
    for (const auto& row : kDescrs) {
        if (code == QLatin1String(row.code))
            return row.type;
    }
    fail(error, QStringLiteral("unsupported dtype '%1' (supported: bool, int8-64, uint8-64, "
                               "float16/32/64, complex64/128; bfloat16 and float8 as '<V2', "
                               "'<V1', '<f1' or their ml_dtypes names)")
                    .arg(descr));
    return std::nullopt;
}

quint32 readLittleEndian(const char* p, int bytes) {
    quint32 value = 0;
    for (int i = bytes - 1; i >= 0; --i)
        value = (value << 8) | quint8(p[i]);
    return value;
}

QString shapeText(const QVector<qint64>& shape) {
    if (shape.isEmpty())
        return QStringLiteral("()");
    QStringList parts;
    for (const qint64 d : shape)
        parts.append(QString::number(d));
    // Python's tuple repr: a one-element tuple keeps its trailing comma.
    return QStringLiteral("(%1%2)").arg(parts.join(QStringLiteral(", ")),
                                        shape.size() == 1 ? QStringLiteral(",") : QString());
}

/// "64 bytes", "2147483648 bytes (2.0 GiB)": exact, with a readable size where it helps.
QString sizeText(qint64 bytes) {
    if (bytes < 0)
        return QStringLiteral("more than 2^63 bytes");
    constexpr qint64 kKiB = 1024;
    if (bytes < kKiB)
        return QStringLiteral("%1 bytes").arg(bytes);
    const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double scaled = double(bytes) / double(kKiB);
    int unit = 0;
    while (scaled >= double(kKiB) && unit < 5) {
        scaled /= double(kKiB);
        ++unit;
    }
    return QStringLiteral("%1 bytes (%2 %3)")
        .arg(bytes)
        .arg(scaled, 0, 'f', 1)
        .arg(QLatin1String(units[unit]));
}

/// Exactly `bytes` bytes from `offset` into `*out`; a short read means the file changed
/// after it was measured.
bool readAt(int fd, qint64 offset, qint64 bytes, QByteArray* out, QString* error) {
    QByteArray buffer(qsizetype(bytes), Qt::Uninitialized);
    qint64 done = 0;
    while (done < bytes) {
        const ssize_t n =
            ::pread(fd, buffer.data() + done, size_t(bytes - done), off_t(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail(error, QStringLiteral("cannot read: %1").arg(errnoText(errno)));
        if (n == 0)
            return fail(error, QStringLiteral("the file changed while it was being read"));
        done += n;
    }
    *out = std::move(buffer);
    return true;
}

/// Where the header that `head` (the file's first bytes) announces ends, capped by the
/// file's size and kMaxHeaderBytes; parseNpyHeader() reports what is wrong with it.
qint64 headerEnd(const QByteArray& head, qint64 fileBytes) {
    if (head.size() < kMagicBytes + 2)
        return head.size();
    const int lengthBytes = quint8(head.at(kMagicBytes)) == 1 ? 2 : 4;
    const qint64 prefix = kMagicBytes + 2 + lengthBytes;
    if (head.size() < prefix)
        return head.size();
    const qint64 headerBytes = readLittleEndian(head.constData() + kMagicBytes + 2, lengthBytes);
    return std::min(prefix + std::min(headerBytes, kMaxHeaderBytes), fileBytes);
}

} // namespace

qint64 NpyArray::elementCount() const {
    for (const qint64 d : shape) {
        if (d <= 0)
            return 0;
    }
    qint64 count = 1;
    for (const qint64 d : shape) {
        if (count > std::numeric_limits<qint64>::max() / d)
            return -1; // cannot happen for parsed arrays, whose shapes are checked
        count *= d;
    }
    return count;
}

QString npyDescr(ScalarType type) {
    // What np.save writes for ml_dtypes arrays, which np.load reads back as void for
    // .view(ml_dtypes.bfloat16) etc. (e5m2's own "<f1" is one np.load refuses).
    if (isLowPrecision(type))
        return scalarTypeInfo(type).sizeBytes == 2 ? QStringLiteral("<V2") : QStringLiteral("<V1");
    for (const auto& row : kDescrs) {
        if (row.type == type) {
            const bool oneByte = scalarTypeInfo(type).sizeBytes == 1;
            return QLatin1Char(oneByte ? '|' : '<') + QLatin1String(row.code);
        }
    }
    return {};
}

namespace {

/// Elements of `shape`, counted with overflow checks so that a shape like (2**62, 2**62) is a
/// message rather than an overflow: -1 when its bytes (of `itemBytes` each) pass 64 bits.
qint64 checkedElementCount(const QVector<qint64>& shape, qint64 itemBytes) {
    if (std::any_of(shape.cbegin(), shape.cend(), [](qint64 d) { return d == 0; }))
        return 0;
    const qint64 maxCount = std::numeric_limits<qint64>::max() / itemBytes;
    qint64 count = 1;
    for (const qint64 d : shape) {
        if (d > maxCount / count)
            return -1;
        count *= d;
    }
    return count;
}

} // namespace

std::optional<NpyHeader> parseNpyHeader(const QByteArray& bytes, QString* error) {
    const qint64 size = bytes.size();
    if (size < kMagicBytes + 2 || std::memcmp(bytes.constData(), kMagic, kMagicBytes) != 0) {
        fail(error, QStringLiteral("not a .npy file (bad magic: expected \\x93NUMPY)"));
        return std::nullopt;
    }
    const int major = quint8(bytes.at(kMagicBytes));
    const int minor = quint8(bytes.at(kMagicBytes + 1));
    if (major < 1 || major > 3 || minor != 0) {
        fail(error, QStringLiteral("unsupported .npy version %1.%2 (1.0 to 3.0 are read)")
                        .arg(major)
                        .arg(minor));
        return std::nullopt;
    }
    const int lengthBytes = major == 1 ? 2 : 4;
    const qint64 prefix = kMagicBytes + 2 + lengthBytes;
    if (size < prefix) {
        fail(error, QStringLiteral("truncated .npy file: no header length"));
        return std::nullopt;
    }
    const qint64 headerBytes = readLittleEndian(bytes.constData() + kMagicBytes + 2, lengthBytes);
    if (headerBytes > kMaxHeaderBytes || headerBytes > size - prefix) {
        fail(error,
             QStringLiteral("truncated .npy file: header of %1 bytes but only %2 bytes follow")
                 .arg(headerBytes)
                 .arg(size - prefix));
        return std::nullopt;
    }
    const QByteArray raw = bytes.mid(prefix, headerBytes);
    const QString header = major == 3 ? QString::fromUtf8(raw) : QString::fromLatin1(raw);

    HeaderParser p(header);
    if (!p.accept(QLatin1Char('{'))) {
        fail(error, QStringLiteral("bad .npy header: expected a dict, got '%1'")
                        .arg(header.left(40).trimmed()));
        return std::nullopt;
    }
    std::optional<QString> descr;
    std::optional<bool> fortran;
    std::optional<QVector<qint64>> shape;
    while (!p.accept(QLatin1Char('}'))) {
        const auto key = p.string();
        if (!key || !p.accept(QLatin1Char(':'))) {
            fail(error, QStringLiteral("bad .npy header: expected 'key': value in '%1'")
                            .arg(header.trimmed()));
            return std::nullopt;
        }
        bool ok = false;
        if (*key == QLatin1String("descr") && !descr) {
            descr = p.string();
            ok = descr.has_value();
            if (!ok && error)
                *error = QStringLiteral("unsupported dtype: structured or sub-array dtypes cannot "
                                        "be read, only plain scalars like '<f4'");
            if (!ok)
                return std::nullopt;
        } else if (*key == QLatin1String("fortran_order") && !fortran) {
            fortran = p.boolean();
            ok = fortran.has_value();
        } else if (*key == QLatin1String("shape") && !shape) {
            shape = p.shape();
            ok = shape.has_value();
        } else {
            fail(error,
                 QStringLiteral("bad .npy header: unexpected or repeated key '%1'").arg(*key));
            return std::nullopt;
        }
        if (!ok) {
            fail(error, QStringLiteral("bad .npy header: cannot read the value of '%1' in '%2'")
                            .arg(*key, header.trimmed()));
            return std::nullopt;
        }
        if (!p.accept(QLatin1Char(','))) {
            if (!p.accept(QLatin1Char('}'))) {
                fail(error, QStringLiteral("bad .npy header: expected ',' or '}' in '%1'")
                                .arg(header.trimmed()));
                return std::nullopt;
            }
            break;
        }
    }
    if (!p.atEnd()) {
        fail(error, QStringLiteral("bad .npy header: text after the dict"));
        return std::nullopt;
    }
    if (!descr || !fortran || !shape) {
        fail(error, QStringLiteral("bad .npy header: missing '%1'")
                        .arg(!descr     ? "descr"
                             : !fortran ? "fortran_order"
                                        : "shape"));
        return std::nullopt;
    }
    const auto type = typeFromDescr(*descr, error);
    if (!type)
        return std::nullopt;
    // Fortran and C order are the same bytes for 0-d and 1-d arrays.
    if (*fortran && shape->size() > 1) {
        fail(error, QStringLiteral("Fortran-order (column-major) arrays are not supported; save "
                                   "with np.ascontiguousarray first"));
        return std::nullopt;
    }

    NpyHeader result;
    result.type = ValueType::of(*type);
    result.descr = *descr;
    result.shape = *shape;
    result.dataOffset = prefix + headerBytes;
    const qint64 itemBytes = scalarTypeInfo(*type).sizeBytes;
    result.elementCount = checkedElementCount(*shape, itemBytes);
    result.dataBytes = result.elementCount < 0 ? -1 : result.elementCount * itemBytes;
    return result;
}

std::optional<NpyArray> parseNpy(const QByteArray& bytes, QString* error) {
    const std::optional<NpyHeader> header = parseNpyHeader(bytes, error);
    if (!header)
        return std::nullopt;
    const qint64 available = bytes.size() - header->dataOffset;
    // Also catches a 0-d array (one element) with no data after the header.
    if (header->dataBytes < 0 || header->dataBytes > available) {
        fail(error, QStringLiteral("truncated .npy data: shape %1 of %2 needs more than the "
                                   "%3 bytes that follow the header")
                        .arg(shapeText(header->shape), header->descr)
                        .arg(available));
        return std::nullopt;
    }
    NpyArray array;
    array.type = header->type;
    array.shape = header->shape;
    // Trailing bytes are ignored, as numpy.load does.
    array.data = bytes.mid(header->dataOffset, header->dataBytes);
    return array;
}

std::optional<NpyArray> readNpy(const QString& path, QString* error) {
    return readNpy(path, NpyExpectation{}, error);
}

std::optional<NpyArray> readNpy(const QString& path, const NpyExpectation& expected,
                                QString* error) {
    const QString shown = QDir::toNativeSeparators(path);
    const auto refuse = [&](const QString& why) -> std::optional<NpyArray> {
        fail(error, QStringLiteral("'%1': %2").arg(shown, why));
        return std::nullopt;
    };
    // O_NONBLOCK: opening a FIFO with no writer would block for ever (it is refused below).
    UniqueFd fd(
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (fd.get() < 0) {
        fail(error, QStringLiteral("cannot open '%1': %2").arg(shown, errnoText(errno)));
        return std::nullopt;
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return refuse(errnoText(errno));
    // /dev/zero never ends and a FIFO may never answer: only regular files have a size to
    // check before reading.
    if (!S_ISREG(st.st_mode))
        return refuse(QStringLiteral("not a regular file (a FIFO, device, socket or folder); only "
                                     "regular .npy files are read"));
    // A regular file never blocks; clearing O_NONBLOCK keeps read semantics plain.
    (void)::fcntl(fd.get(), F_SETFL, O_RDONLY);
    const qint64 fileBytes = st.st_size;

    // The fixed prefix, then the header it announces: at most kMaxHeaderBytes are read
    // before the shape and dtype are known.
    QString inner;
    QByteArray head;
    if (!readAt(fd.get(), 0, std::min<qint64>(fileBytes, kMaxPrefixBytes), &head, &inner))
        return refuse(inner);
    const qint64 headEnd = headerEnd(head, fileBytes);
    if (headEnd > head.size()) {
        QByteArray rest;
        if (!readAt(fd.get(), head.size(), headEnd - head.size(), &rest, &inner))
            return refuse(inner);
        head += rest;
    }
    const std::optional<NpyHeader> header = parseNpyHeader(head, &inner);
    if (!header)
        return refuse(inner);

    const QString holds =
        QStringLiteral("shape %1 of %2").arg(shapeText(header->shape), header->descr);
    // A void descr holds whichever low-precision type of its size the buffer declares.
    const bool sizeOnly = isSizeOnlyDescr(header->descr);
    const bool voidFits = sizeOnly && expected.type && !expected.type->isStruct() &&
                          isLowPrecision(expected.type->scalar) &&
                          expected.type->sizeBytes() == header->type.sizeBytes();
    if (sizeOnly && expected.type && !voidFits)
        return refuse(QStringLiteral("holds %1-byte elements of no stated type (%2, as NumPy "
                                     "saves ml_dtypes arrays) but %3's elements are %4 of %5 "
                                     "byte(s)")
                          .arg(header->type.sizeBytes())
                          .arg(header->descr, expected.what, expected.type->displayName())
                          .arg(expected.type->sizeBytes()));
    if (expected.type && !voidFits && *expected.type != header->type)
        return refuse(QStringLiteral("holds %1 (%2) but %3's elements are %4")
                          .arg(header->type.displayName(), header->descr, expected.what,
                               expected.type->displayName()));
    if (header->dataBytes < 0)
        return refuse(QStringLiteral("%1 is more than 2^63 bytes").arg(holds));
    if (expected.elementCount && *expected.elementCount != header->elementCount) {
        const qint64 itemBytes = header->type.sizeBytes();
        const qint64 wantBytes =
            *expected.elementCount <= std::numeric_limits<qint64>::max() / itemBytes
                ? *expected.elementCount * itemBytes
                : -1;
        return refuse(QStringLiteral("%1 has %2 elements but %3 has %4: the file holds %5 of "
                                     "data, %3 needs %6")
                          .arg(holds)
                          .arg(header->elementCount)
                          .arg(expected.what)
                          .arg(*expected.elementCount)
                          .arg(sizeText(header->dataBytes), sizeText(wantBytes)));
    }
    const qint64 maxDataBytes =
        expected.maxDataBytes >= 0 ? expected.maxDataBytes : kMaxBufferBytes;
    if (header->dataBytes > maxDataBytes)
        return refuse(QStringLiteral("%1: %2 of data, more than the %3 allowed")
                          .arg(holds, sizeText(header->dataBytes), sizeText(maxDataBytes)));
    if (header->dataBytes > fileBytes - header->dataOffset)
        return refuse(QStringLiteral("truncated .npy data: shape %1 of %2 needs %3 but the "
                                     "file has %4 after the header")
                          .arg(shapeText(header->shape), header->descr, sizeText(header->dataBytes),
                               sizeText(fileBytes - header->dataOffset)));

    NpyArray array;
    array.type = voidFits ? *expected.type : header->type;
    array.shape = header->shape;
    // Trailing bytes are never read (numpy.load ignores them too).
    try {
        if (!readAt(fd.get(), header->dataOffset, header->dataBytes, &array.data, &inner))
            return refuse(inner);
    } catch (const std::bad_alloc&) {
        return refuse(
            QStringLiteral("out of host memory for %1 of data").arg(sizeText(header->dataBytes)));
    }
    return array;
}

QByteArray serializeNpy(const NpyArray& array) {
    if (array.type.isStruct())
        return {};
    const QString descr = npyDescr(array.type.scalar);
    QByteArray header = QStringLiteral("{'descr': '%1', 'fortran_order': False, 'shape': %2, }")
                            .arg(descr, shapeText(array.shape))
                            .toLatin1();
    // Version 1.0 unless the header needs the 4-byte length of 2.0.
    int lengthBytes = 2;
    int total = kMagicBytes + 2 + lengthBytes + header.size() + 1;
    if (total + kAlignBytes > 0xFFFF) {
        lengthBytes = 4;
        total = kMagicBytes + 2 + lengthBytes + header.size() + 1;
    }
    const int padding = (kAlignBytes - total % kAlignBytes) % kAlignBytes;
    header.append(QByteArray(padding, ' '));
    header.append('\n');

    QByteArray out(kMagic, kMagicBytes);
    out.append(char(lengthBytes == 2 ? 1 : 2));
    out.append(char(0));
    const quint32 length = quint32(header.size());
    for (int i = 0; i < lengthBytes; ++i)
        out.append(char((length >> (8 * i)) & 0xFF));
    out.append(header);
    out.append(array.data);
    return out;
}

bool writeNpy(const QString& path, const NpyArray& array, QString* error) {
    if (array.type.isStruct())
        return fail(error, QStringLiteral("cannot write '%1': struct elements (%2) have no .npy "
                                          "dtype here")
                               .arg(path, array.type.displayName()));
    const qint64 expected = array.elementCount() * array.type.sizeBytes();
    if (array.elementCount() < 0 || expected != array.data.size())
        return fail(error, QStringLiteral("cannot write '%1': shape %2 needs %3 bytes but the data "
                                          "has %4")
                               .arg(path, shapeText(array.shape))
                               .arg(expected)
                               .arg(array.data.size()));
    QString why;
    if (!writeFileAtomically(path, serializeNpy(array), &why))
        return fail(error, why);
    return true;
}

} // namespace kernelpad

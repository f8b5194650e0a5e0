// The "special" init pattern: uniform data with a seeded share of its values replaced by the
// type's special values (NaN, infinities, -0, denormals, extremes), for every scalar type;
// its JSON and text forms, and the messages for a bad rate and for bool.

#include "../support/TestMain.h"
#include "core/launch/ArgumentText.h"
#include "core/launch/BufferInit.h"
#include "core/launch/BufferInitSpecial.h"
#include "core/launch/ScalarCodec.h"
#include "core/launch/ValueType.h"

#include <QJsonObject>
#include <QSet>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>

namespace tst_specialinit {

using namespace kernelpad;

namespace {

BufferSpec specialSpec(ScalarType type, double rate, double low = -1, double high = 1) {
    BufferSpec spec;
    spec.elementType = ValueType::of(type);
    spec.init.kind = InitSpec::Kind::Special;
    spec.init.rate = rate;
    spec.init.seed = 7;
    spec.init.low = low;
    spec.init.high = high;
    return spec;
}

QByteArray contents(const BufferSpec& spec, qint64 count) {
    QString error;
    const std::optional<QByteArray> bytes = makeBufferContents(spec, count, {}, &error);
    if (!bytes)
        qFatal("%s", qPrintable(error));
    return *bytes;
}

/// Component `c` of element `i` as raw bits (a float4_e2m1x2 nibble, a complex part).
quint64 componentBits(ScalarType type, const QByteArray& data, qint64 i, int c) {
    const int size = scalarTypeInfo(type).sizeBytes;
    if (type == ScalarType::Float4E2M1x2)
        return (quint8(data[int(i)]) >> (4 * c)) & 0xF;
    const int part = size / componentCount(type);
    quint64 bits = 0;
    std::memcpy(&bits, data.constData() + i * size + c * part, size_t(part));
    return bits;
}

/// Ranges every type accepts for its uniform part, far from its special values (float4_e2m1
/// rounds [-1, 1) to +-0.5 and -0 often, which are special).
void rangeFor(ScalarType type, double* low, double* high) {
    *low = 2;
    *high = 4;
    if (detail::isIntegerType(type) && !scalarTypeInfo(type).isSigned) {
        *low = 0;
        *high = 100;
    } else if (detail::isIntegerType(type)) {
        *low = -50;
        *high = 50;
    }
}

} // namespace

class TestSpecialInit : public QObject {
    Q_OBJECT

private slots:
    void everyTypeMixesItsSpecialsIntoUniform_data() {
        QTest::addColumn<int>("type");
        for (const ScalarType t : allScalarTypes())
            if (t != ScalarType::Bool)
                QTest::newRow(scalarTypeInfo(t).numpyName) << int(t);
    }

    void everyTypeMixesItsSpecialsIntoUniform() {
        QFETCH(int, type);
        const auto t = ScalarType(type);
        double low = 0, high = 0;
        rangeFor(t, &low, &high);
        const qint64 count = 20000;
        const QByteArray special = contents(specialSpec(t, 0.05, low, high), count);
        BufferSpec uniformSpec = specialSpec(t, 0, low, high);
        uniformSpec.init.kind = InitSpec::Kind::Uniform;
        const QByteArray uniform = contents(uniformSpec, count);
        // Rate 0 is uniform's contents exactly.
        QCOMPARE(contents(specialSpec(t, 0, low, high), count), uniform);

        const QVector<quint64> table = specialValueBits(t);
        QVERIFY(!table.isEmpty());
        QSet<quint64> seen;
        qint64 replaced = 0, values = 0;
        for (qint64 i = 0; i < count; ++i) {
            for (int c = 0; c < componentCount(t); ++c, ++values) {
                const quint64 got = componentBits(t, special, i, c);
                if (got == componentBits(t, uniform, i, c) && !table.contains(got))
                    continue;
                QVERIFY2(table.contains(got),
                         qPrintable(QStringLiteral("element %1.%2: bits %3 neither uniform's nor "
                                                   "special")
                                        .arg(i)
                                        .arg(c)
                                        .arg(got, 0, 16)));
                seen.insert(got);
                ++replaced;
            }
        }
        // About 5% (plus uniform values that happen to be special: an integer 0 or -1).
        QVERIFY2(replaced > values * 4 / 100 && replaced < values * 9 / 100,
                 qPrintable(QStringLiteral("%1 of %2 values special").arg(replaced).arg(values)));
        QCOMPARE(seen.size(), table.size()); // every special value turns up
    }

    void floatSpecials() {
        const QVector<quint64> f32 = specialValueBits(ScalarType::Float32);
        const auto value = [](quint64 bits) {
            float f = 0;
            const auto b = quint32(bits);
            std::memcpy(&f, &b, sizeof f);
            return f;
        };
        QVERIFY(std::isnan(value(f32[0])));
        QCOMPARE(value(f32[1]), std::numeric_limits<float>::infinity());
        QCOMPARE(value(f32[2]), -std::numeric_limits<float>::infinity());
        QVERIFY(value(f32[3]) == 0 && std::signbit(value(f32[3])));
        QCOMPARE(value(f32[4]), std::numeric_limits<float>::denorm_min());
        QCOMPARE(value(f32[7]), std::numeric_limits<float>::min());
        QCOMPARE(value(f32[8]), std::numeric_limits<float>::max());
        // float8_e4m3 has no infinity: NaN and +-448 at the ends.
        for (const quint64 bits : specialValueBits(ScalarType::Float8E4M3))
            QVERIFY(!std::isinf(
                detail::loadScalar(ScalarType::Float8E4M3, reinterpret_cast<const char*>(&bits))));
        // float4_e2m1: neither NaN nor infinity.
        QCOMPARE(specialValueBits(ScalarType::Float4E2M1x2).size(), 5);
        // Integers: min, max, 0, -1; unsigned: 0, max.
        QCOMPARE(specialValueBits(ScalarType::Int8), (QVector<quint64>{0x80, 0x7F, 0, 0xFF}));
        QCOMPARE(specialValueBits(ScalarType::UInt16), (QVector<quint64>{0, 0xFFFF}));
    }

    void badRateAndBoolAreNamed() {
        QString error;
        QVERIFY(!InitSpec::fromJson(QJsonObject{{"kind", "special"}, {"rate", 1.5}}, &error));
        QVERIFY2(error.startsWith("rate: must be between 0 and 1"), qPrintable(error));
        QVERIFY(!InitSpec::fromJson(QJsonObject{{"kind", "special"}, {"rate", -0.1}}, &error));
        QVERIFY2(error.contains("rate"), qPrintable(error));
        QVERIFY(!makeBufferContents(specialSpec(ScalarType::Bool, 0.05), 8, {}, &error));
        QVERIFY2(error.contains("bool has no special values"), qPrintable(error));
    }

    void jsonAndTextForms() {
        QString error;
        const std::optional<InitSpec> init = InitSpec::fromJson(
            QJsonObject{{"kind", "special"}, {"rate", 0.05}, {"seed", 7}, {"low", -1}, {"high", 1}},
            &error);
        QVERIFY2(init, qPrintable(error));
        QCOMPARE(init->kind, InitSpec::Kind::Special);
        QCOMPARE(init->rate, 0.05);
        QCOMPARE(init->seed, quint64(7));
        const std::optional<InitSpec> back = InitSpec::fromJson(init->toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->toJson(), init->toJson());
        const QString text = formatInitSpec(*init);
        QCOMPARE(text, QStringLiteral("special -1 1 rate=0.05 seed=7"));
        const std::optional<InitSpec> parsed = parseInitSpec(text, &error);
        QVERIFY2(parsed, qPrintable(error));
        QCOMPARE(parsed->toJson(), init->toJson());
        QVERIFY(!parseInitSpec("special -1 1 rate=often", &error));
        QVERIFY2(error.contains("rate"), qPrintable(error));
    }
};

KERNELPAD_TEST_APPLESS_MAIN(TestSpecialInit)
} // namespace tst_specialinit
#include "tst_specialinit.moc"

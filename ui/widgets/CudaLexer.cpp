#include "ui/widgets/CudaLexer.h"

#include <QStringList>

namespace kernelpad {

namespace {

// Space-separated as Scintilla wants them; sorted is not required.
const char kCudaKeywords[] =
    // qualifiers and attributes
    "__global__ __device__ __host__ __shared__ __constant__ __managed__ __restrict__ "
    "__launch_bounds__ __forceinline__ __noinline__ __grid_constant__ __cluster_dims__ "
    "__align__ __builtin_assume __builtin_expect __cudart_builtin__ "
    // built-in variables
    "threadIdx blockIdx blockDim gridDim warpSize "
    // synchronisation and fences
    "__syncthreads __syncthreads_count __syncthreads_and __syncthreads_or __syncwarp "
    "__threadfence __threadfence_block __threadfence_system __nanosleep "
    // atomics
    "atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS "
    "atomicAnd atomicOr atomicXor "
    // warp intrinsics
    "__shfl_sync __shfl_up_sync __shfl_down_sync __shfl_xor_sync __ballot_sync __any_sync "
    "__all_sync __uni_sync __match_any_sync __match_all_sync __activemask "
    "__reduce_add_sync __reduce_min_sync __reduce_max_sync __reduce_and_sync "
    "__reduce_or_sync __reduce_xor_sync "
    // loads, stores and bit tricks
    "__ldg __ldcg __ldca __ldcs __ldlu __ldcv __stwb __stcg __stcs __stwt "
    "__popc __popcll __clz __clzll __ffs __ffsll __brev __brevll __byte_perm __funnelshift_l "
    "__funnelshift_r __mul24 __umul24 __mulhi __umulhi __mul64hi __umul64hi __sad __usad "
    "__fdividef __expf __exp10f __logf __log2f __log10f __sinf __cosf __tanf __sincosf "
    "__powf __saturatef __fmaf_rn __fadd_rn __fmul_rn __fdiv_rn __frcp_rn __fsqrt_rn "
    "__float2half __half2float __float2half_rn __floats2half2_rn __half22float2 "
    "__float2bfloat16 __bfloat162float __hadd __hsub __hmul __hdiv __hfma __hadd2 __hmul2 "
    "__hfma2 clock clock64 __prof_trigger __trap __brkpt printf assert malloc free "
    // half, bfloat16 and vector types
    "half half2 __half __half2 __nv_bfloat16 __nv_bfloat162 nv_bfloat16 nv_bfloat162 "
    "char1 char2 char3 char4 uchar1 uchar2 uchar3 uchar4 short1 short2 short3 short4 "
    "ushort1 ushort2 ushort3 ushort4 int1 int2 int3 int4 uint1 uint2 uint3 uint4 "
    "long1 long2 long3 long4 ulong1 ulong2 ulong3 ulong4 longlong1 longlong2 longlong3 "
    "longlong4 ulonglong1 ulonglong2 ulonglong3 ulonglong4 float1 float2 float3 float4 "
    "double1 double2 double3 double4 dim3 cuComplex cuFloatComplex cuDoubleComplex "
    "make_int2 make_int3 make_int4 make_uint2 make_uint3 make_uint4 make_float2 make_float3 "
    "make_float4 make_double2 make_double3 make_double4 make_cuComplex make_cuFloatComplex "
    "make_cuDoubleComplex cooperative_groups cg";

const char kLibraryTypes[] =
    "size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t "
    "intptr_t uintptr_t std";

// PTX ISA 8.x: instructions (set 1), directives, state spaces, types and modifiers without
// their dot (set 2), special registers without their % (set 4).
const char kPtxInstructions[] =
    "abs activemask add addc and atom bar barrier bfe bfi bfind bmsk bra brev brkpt brx call "
    "clz cnot copysign cos cp cvt cvta discard div dp2a dp4a elect ex2 exit fence fma fns "
    "getctarank isspacep istypep ld ldmatrix ldu lg2 lop3 mad mad24 madc mapa match max "
    "mbarrier membar min mma mov movmatrix mul mul24 nanosleep neg not or pmevent popc prefetch "
    "prefetchu prmt rcp red redux rem ret rsqrt sad selp set setmaxnreg setp shf shfl shl shr "
    "sin slct sqrt st stackrestore stacksave stmatrix sub subc suld suq sured sust tanh "
    "testp tex tld4 trap txq vabsdiff vadd vmad vmax vmin vote vset vshl vshr vsub wgmma wmma "
    "xor";
const char kPtxDirectives[] =
    "address_size align branchtargets callprototype calltargets const entry explicitcluster "
    "extern file func global loc local maxnctapersm maxnreg maxntid minnctapersm noreturn "
    "param pragma reg reqnctapercluster reqntid section shared sreg target tex version "
    "visible weak pred b8 b16 b32 b64 b128 s8 s16 s32 s64 u8 u16 u32 u64 f16 f16x2 bf16 "
    "bf16x2 f32 f64 tf32 v2 v4 rn rz rm rp rni rzi rmi rpi ftz sat approx full wide lo hi eq "
    "ne lt le gt ge lo ls hs equ neu ltu leu gtu geu num nan uni sync aligned all any ballot "
    "down up bfly idx gpu sys cta cluster relaxed acquire release acq_rel volatile ca cg cs lu "
    "cv wb wt nc to";
const char kPtxSpecialRegisters[] =
    "tid ntid ctaid nctaid laneid warpid nwarpid smid nsmid gridid clock clock64 lanemask_eq "
    "lanemask_le lanemask_lt lanemask_ge lanemask_gt globaltimer clusterid nclusterid "
    "cluster_ctaid cluster_nctaid cluster_ctarank cluster_nctarank dynamic_smem_size envreg0";
// NVVM IR (LLVM 7 text): instructions (set 1), types and linkage words (set 2).
const char kNvvmInstructions[] =
    "add addrspacecast alloca and ashr bitcast br call extractelement extractvalue fadd fcmp "
    "fdiv fmul fneg fpext fptosi fptoui fptrunc frem fsub getelementptr icmp insertelement "
    "insertvalue inttoptr load lshr mul or phi ptrtoint ret sdiv select sext shl shufflevector "
    "sitofp srem store sub switch trunc udiv uitofp unreachable urem xor zext define declare "
    "attributes target datalayout triple";
const char kNvvmTypes[] =
    "void half float double i1 i8 i16 i32 i64 i128 label metadata addrspace align nsw nuw "
    "exact inbounds global constant internal external private linkonce weak "
    "eq ne ugt uge ult ule sgt sge slt sle oeq one olt ole ogt oge true false null undef";

} // namespace

CudaLexer::CudaLexer(QObject* parent)
    : QsciLexerCPP(parent) {
    // #if 0 blocks are shown greyed, which helps when toggling variants with defines.
    setStylePreprocessor(true);
    setFoldComments(true);
    setFoldCompact(false);
    setFoldAtElse(true);
}

const char* CudaLexer::language() const {
    return "CUDA";
}

const char* CudaLexer::keywords(int set) const {
    if (m_language == SourceLanguage::Ptx)
        return set == 1   ? kPtxInstructions
               : set == 2 ? kPtxDirectives
               : set == 4 ? kPtxSpecialRegisters
                          : nullptr;
    if (m_language == SourceLanguage::Nvvm)
        return set == 1 ? kNvvmInstructions : set == 2 ? kNvvmTypes : nullptr;
    switch (set) {
    case 2:
        return kCudaKeywords;
    case 4:
        return kLibraryTypes;
    default:
        return QsciLexerCPP::keywords(set);
    }
}

QString CudaLexer::description(int style) const {
    if (style == KeywordSet2 && m_language == SourceLanguage::Ptx)
        return tr("PTX directive, state space or type");
    if (style == KeywordSet2)
        return tr("CUDA keyword or built-in");
    return QsciLexerCPP::description(style);
}

QStringList CudaLexer::cudaKeywords() {
    return QString::fromLatin1(kCudaKeywords).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

void CudaLexer::applyTheme(const Theme& theme, const QFont& font) {
    setDefaultPaper(theme.paper);
    setDefaultColor(theme.text);
    setDefaultFont(font);
    setFont(font, -1);
    setPaper(theme.paper, -1);
    setColor(theme.text, -1);

    QFont bold = font;
    bold.setBold(true);
    QFont italic = font;
    italic.setItalic(true);

    struct StyleColour {
        int style;
        QColor colour;
        const QFont* font;
    };
    const StyleColour styles[] = {
        {Comment, theme.comment, &italic},
        {CommentLine, theme.comment, &italic},
        {CommentDoc, theme.comment, &italic},
        {CommentLineDoc, theme.comment, &italic},
        {CommentDocKeyword, theme.comment, &bold},
        {CommentDocKeywordError, theme.errorColor, &italic},
        {PreProcessorComment, theme.comment, &italic},
        {PreProcessorCommentLineDoc, theme.comment, &italic},
        {Number, theme.number, &font},
        {Keyword, theme.keyword, &bold},
        {KeywordSet2, theme.cudaKeyword, &bold},
        {GlobalClass, theme.type, &font},
        {DoubleQuotedString, theme.string, &font},
        {SingleQuotedString, theme.string, &font},
        {RawString, theme.string, &font},
        {VerbatimString, theme.string, &font},
        {UnclosedString, theme.errorColor, &font},
        {UserLiteral, theme.number, &font},
        {EscapeSequence, theme.number, &font},
        {PreProcessor, theme.preprocessor, &font},
        {Operator, theme.operatorColor, &font},
        {Identifier, theme.text, &font},
        {Default, theme.text, &font},
        {TaskMarker, theme.warningColor, &bold},
    };
    // Inactive code (#if 0) uses the same styles offset by 64; render it faded.
    constexpr int kInactiveOffset = 64;
    for (const StyleColour& s : styles) {
        setColor(s.colour, s.style);
        setFont(*s.font, s.style);
        setPaper(theme.paper, s.style);
        setColor(theme.comment, s.style + kInactiveOffset);
        setFont(font, s.style + kInactiveOffset);
        setPaper(theme.paper, s.style + kInactiveOffset);
    }
}

} // namespace kernelpad

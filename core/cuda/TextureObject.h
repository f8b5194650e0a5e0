#pragma once
// A CUDA array with the texture or surface object over it (cuArray3DCreate + cuTexObjectCreate
// or cuSurfObjectCreate): the 8-byte handle a kernel takes as cudaTextureObject_t or
// cudaSurfaceObject_t.

#include "core/cuda/Stream.h"

#include <cuda.h>

#include <QString>

#include <array>

namespace kernelpad {

/// A CUDA array in the driver's terms (CUDA_ARRAY3D_DESCRIPTOR).
struct ArrayDesc {
    qint64 width = 1;  ///< texels
    qint64 height = 0; ///< 0: a 1D array
    qint64 depth = 0;  ///< 0: no depth; layers, or 6 faces per cubemap layer, when flagged
    CUarray_format format = CU_AD_FORMAT_FLOAT;
    int channels = 1;     ///< 1, 2 or 4
    int channelBytes = 4; ///< bytes of one channel value
    unsigned flags = 0;   ///< CUDA_ARRAY3D_LAYERED, _CUBEMAP, _SURFACE_LDST
    QString label;        ///< names the array in messages: "texture 'tex'"

    [[nodiscard]] qint64 rowBytes() const { return width * channels * channelBytes; }
    /// Bytes of the whole array, every layer and face.
    [[nodiscard]] qint64 sizeBytes() const;
};

/// How a texture object samples its array (CUDA_TEXTURE_DESC).
struct SamplerDesc {
    std::array<CUaddress_mode, 3> address{CU_TR_ADDRESS_MODE_CLAMP, CU_TR_ADDRESS_MODE_CLAMP,
                                          CU_TR_ADDRESS_MODE_CLAMP};
    CUfilter_mode filter = CU_TR_FILTER_MODE_POINT;
    unsigned flags = 0; ///< CU_TRSF_NORMALIZED_COORDINATES, CU_TRSF_READ_AS_INTEGER
    std::array<float, 4> borderColor{0, 0, 0, 0};
};

/// A CUDA array and the texture or surface object reading it; move-only, both destroyed in
/// the destructor (which never throws).
class TextureObject {
public:
    TextureObject() = default;
    /// Throws CudaError naming `array.label` and the call that failed.
    [[nodiscard]] static TextureObject texture(const ArrayDesc& array, const SamplerDesc& sampler);
    /// The array gets CUDA_ARRAY3D_SURFACE_LDST, which surface objects need.
    [[nodiscard]] static TextureObject surface(const ArrayDesc& array);
    ~TextureObject();
    TextureObject(TextureObject&& other) noexcept;
    TextureObject& operator=(TextureObject&& other) noexcept;
    TextureObject(const TextureObject&) = delete;
    TextureObject& operator=(const TextureObject&) = delete;

    /// The CUtexObject or CUsurfObject, as the kernel parameter's 8 bytes.
    [[nodiscard]] quint64 handle() const { return m_handle; }
    [[nodiscard]] bool isSurface() const { return m_surface; }
    [[nodiscard]] const ArrayDesc& desc() const { return m_desc; }

    /// Copies the whole array from (to) `host`, desc().sizeBytes() bytes laid out row by row,
    /// then slice by slice (layer, face); `host` must stay valid until `stream` is synchronized.
    void uploadAsync(const void* host, const Stream& stream);
    void downloadAsync(void* host, const Stream& stream) const;

private:
    static CUarray createArray(const ArrayDesc& desc);
    void reset() noexcept;

    CUarray m_array = nullptr;
    quint64 m_handle = 0;
    bool m_surface = false;
    ArrayDesc m_desc;
};

} // namespace kernelpad

// SPDX-License-Identifier: MIT
//
// Kernel of add_custom: z = x + y, double-buffered through VECIN/VECOUT
// queues, big and small cores selected by tiling key, a shorter last tile,
// and an int8 path through half temporaries.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename TYPE_X, typename TYPE_Y, typename TYPE_Z, bool IsExistBigCore> class KernelAdd {
public:
	__aicore__ inline KernelAdd() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint64_t smallCoreDataNum, uint64_t bigCoreDataNum,
				    uint64_t bigCoreLoopNum, uint64_t smallCoreLoopNum, uint64_t ubPartDataNum,
				    uint64_t smallCoreTailDataNum, uint64_t bigCoreTailDataNum, uint64_t tailBlockNum)
	{
		uint64_t coreIdx = GetBlockIdx();
		uint64_t offset = bigCoreDataNum * coreIdx;
		this->ubPartDataNum = ubPartDataNum;
		if (IsExistBigCore && coreIdx < tailBlockNum) {
			this->coreDataNum = bigCoreDataNum;
			this->tileNum = bigCoreLoopNum;
			this->tailDataNum = bigCoreTailDataNum;
		} else {
			this->coreDataNum = smallCoreDataNum;
			this->tileNum = smallCoreLoopNum;
			this->tailDataNum = smallCoreTailDataNum;
			if (IsExistBigCore)
				offset = bigCoreDataNum * tailBlockNum + smallCoreDataNum * (coreIdx - tailBlockNum);
			else
				offset = smallCoreDataNum * coreIdx;
		}
		xGm.SetGlobalBuffer((__gm__ TYPE_X *)x + offset, this->coreDataNum);
		yGm.SetGlobalBuffer((__gm__ TYPE_Y *)y + offset, this->coreDataNum);
		zGm.SetGlobalBuffer((__gm__ TYPE_Z *)z + offset, this->coreDataNum);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, this->ubPartDataNum * sizeof(TYPE_X));
		pipe.InitBuffer(inQueueY, BUFFER_NUM, this->ubPartDataNum * sizeof(TYPE_Y));
		pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->ubPartDataNum * sizeof(TYPE_Z));
		if constexpr (std::is_same_v<TYPE_X, int8_t>) {
			pipe.InitBuffer(tmp1, this->ubPartDataNum * sizeof(half));
			pipe.InitBuffer(tmp2, this->ubPartDataNum * sizeof(half));
		}
	}

	__aicore__ inline void Process()
	{
		int32_t loopCount = this->tileNum;
		this->processDataNum = this->ubPartDataNum;
		for (int32_t i = 0; i < loopCount; i++) {
			if (i == loopCount - 1)
				this->processDataNum = this->tailDataNum;
			CopyIn(i);
			Compute(i);
			CopyOut(i);
		}
	}

private:
	__aicore__ inline void CopyIn(int32_t progress)
	{
		LocalTensor<TYPE_X> xLocal = inQueueX.AllocTensor<TYPE_X>();
		LocalTensor<TYPE_Y> yLocal = inQueueY.AllocTensor<TYPE_Y>();
		DataCopy(xLocal, xGm[progress * this->ubPartDataNum], this->processDataNum);
		DataCopy(yLocal, yGm[progress * this->ubPartDataNum], this->processDataNum);
		inQueueX.EnQue(xLocal);
		inQueueY.EnQue(yLocal);
	}

	__aicore__ inline void Compute(int32_t progress)
	{
		LocalTensor<TYPE_X> xLocal = inQueueX.DeQue<TYPE_X>();
		LocalTensor<TYPE_Y> yLocal = inQueueY.DeQue<TYPE_Y>();
		LocalTensor<TYPE_Z> zLocal = outQueueZ.AllocTensor<TYPE_Z>();
		if constexpr (std::is_same_v<TYPE_X, int8_t>) {
			LocalTensor<half> p1 = tmp1.Get<half>();
			LocalTensor<half> p2 = tmp2.Get<half>();
			Cast(p1, xLocal, RoundMode::CAST_NONE, this->processDataNum);
			Cast(p2, yLocal, RoundMode::CAST_NONE, this->processDataNum);
			Add(p2, p1, p2, this->processDataNum);
			Cast(zLocal, p2, RoundMode::CAST_TRUNC, this->processDataNum);
		} else {
			Add(zLocal, xLocal, yLocal, this->processDataNum);
		}
		outQueueZ.EnQue<TYPE_Z>(zLocal);
		inQueueX.FreeTensor(xLocal);
		inQueueY.FreeTensor(yLocal);
	}

	__aicore__ inline void CopyOut(int32_t progress)
	{
		LocalTensor<TYPE_Z> zLocal = outQueueZ.DeQue<TYPE_Z>();
		DataCopy(zGm[progress * this->ubPartDataNum], zLocal, this->processDataNum);
		outQueueZ.FreeTensor(zLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
	TBuf<QuePosition::VECCALC> tmp1, tmp2;
	GlobalTensor<TYPE_X> xGm;
	GlobalTensor<TYPE_Y> yGm;
	GlobalTensor<TYPE_Z> zGm;
	uint64_t coreDataNum;
	uint64_t tileNum;
	uint64_t ubPartDataNum;
	uint64_t tailDataNum;
	uint64_t processDataNum;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	if (TILING_KEY_IS(1)) {
		KernelAdd<DTYPE_X, DTYPE_Y, DTYPE_Z, true> op;
		op.Init(x, y, z, tilingData.smallCoreDataNum, tilingData.bigCoreDataNum, tilingData.bigCoreLoopNum,
			tilingData.smallCoreLoopNum, tilingData.ubPartDataNum, tilingData.smallCoreTailDataNum,
			tilingData.bigCoreTailDataNum, tilingData.tailBlockNum);
		op.Process();
	} else if (TILING_KEY_IS(0)) {
		KernelAdd<DTYPE_X, DTYPE_Y, DTYPE_Z, false> op;
		op.Init(x, y, z, tilingData.smallCoreDataNum, tilingData.bigCoreDataNum, tilingData.bigCoreLoopNum,
			tilingData.smallCoreLoopNum, tilingData.ubPartDataNum, tilingData.smallCoreTailDataNum,
			tilingData.bigCoreTailDataNum, tilingData.tailBlockNum);
		op.Process();
	}
}

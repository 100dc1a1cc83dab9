// SPDX-License-Identifier: MIT
//
// Kernel of brcb_pair_trans (one core).
//   ab  Brcb of a: each value fills a 32-byte block (16 halves)
//   ab2 Brcb with dstBlkStride 2: 16 copies, then 16 zeros, per value
//   bp  PairReduceSum of each 64-float row of b: 32 pair sums
//   cp  Copy of b's rows, lanes 0..47 only (mask set outside), zeros behind
//   cp2 Copy of b's even 32-byte blocks (source block stride 2)
//   tt  TransDataTo5HD b32 (address list): t [16, W] -> [W, 16]
//   te  Transpose NCHW2NHWC of t as [1, 16, 1, W]: the same matrix
//   ht  TransDataTo5HD b16 (LocalTensor list): h [16, W] -> [W, 16]
//   hb  Transpose (16x16) of each 16-row block of ht
//   qt  TransDataTo5HD b8 (address lists in UB), low then high halves
//   bc  BroadCast<half, 2, 1> of a as [n, 1] to [n, 16] (ab again)
//   bc3 BroadCast<half, 2, 1> to [n, 20], rows not 32-byte multiples
//   bc0 BroadCast<float, 2, 0> of each tile's first b row to 4 rows
//   qb  BroadCast<int8_t, 1, 0> of q[0][0] to 32 elements
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t TILE = 64;

class KernelBrcbPairTrans {
public:
	__aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR t, GM_ADDR h, GM_ADDR q, GM_ADDR ab, GM_ADDR ab2,
				    GM_ADDR bp, GM_ADDR cp, GM_ADDR cp2, GM_ADDR tt, GM_ADDR te, GM_ADDR ht, GM_ADDR hb, GM_ADDR qt, GM_ADDR bc, GM_ADDR bc3,
				    GM_ADDR bc0, GM_ADDR qb, uint32_t rows,
				    uint32_t width)
	{
		this->rows = rows;
		this->width = width;
		bcGm.SetGlobalBuffer((__gm__ half *)bc, rows * 16);
		bc3Gm.SetGlobalBuffer((__gm__ half *)bc3, rows * 20);
		bc0Gm.SetGlobalBuffer((__gm__ float *)bc0, (rows + TILE - 1) / TILE * 4 * 64);
		qbGm.SetGlobalBuffer((__gm__ int8_t *)qb, 32);
		aGm.SetGlobalBuffer((__gm__ half *)a, rows);
		bGm.SetGlobalBuffer((__gm__ float *)b, rows * 64);
		tGm.SetGlobalBuffer((__gm__ float *)t, 16 * width);
		hGm.SetGlobalBuffer((__gm__ half *)h, 16 * width);
		qGm.SetGlobalBuffer((__gm__ int8_t *)q, 16 * width);
		abGm.SetGlobalBuffer((__gm__ half *)ab, rows * 16);
		ab2Gm.SetGlobalBuffer((__gm__ half *)ab2, rows * 32);
		bpGm.SetGlobalBuffer((__gm__ float *)bp, rows * 32);
		cpGm.SetGlobalBuffer((__gm__ float *)cp, rows * 64);
		cp2Gm.SetGlobalBuffer((__gm__ float *)cp2, rows * 32);
		ttGm.SetGlobalBuffer((__gm__ float *)tt, 16 * width);
		teGm.SetGlobalBuffer((__gm__ float *)te, 16 * width);
		htGm.SetGlobalBuffer((__gm__ half *)ht, 16 * width);
		hbGm.SetGlobalBuffer((__gm__ half *)hb, 16 * width);
		qtGm.SetGlobalBuffer((__gm__ int8_t *)qt, 16 * width);
		pipe.InitBuffer(inBuf, TILE * 64 * sizeof(float));
		pipe.InitBuffer(outBuf, TILE * 32 * sizeof(float));
		pipe.InitBuffer(srcBuf, 16 * 256 * sizeof(float));
		pipe.InitBuffer(dstBuf, 16 * 256 * sizeof(float));
		pipe.InitBuffer(tmpBuf, 16 * 1024);
		pipe.InitBuffer(listBuf, 2 * 16 * sizeof(uint64_t));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < rows; r += TILE) {
			uint32_t n = rows - r < TILE ? rows - r : TILE;
			RowTile(r, n);
		}
		Transposes();
	}

private:
	__aicore__ inline void RowTile(uint32_t r, uint32_t n)
	{
		LocalTensor<half> ain = inBuf.Get<half>();
		LocalTensor<half> aout = outBuf.Get<half>();
		DataCopyPad(ain, aGm[r], DataCopyExtParams(1, n * sizeof(half), 0, 0, 0),
			    DataCopyPadExtParams<half>(false, 0, 0, (half)0));
		Brcb(aout, ain, (uint8_t)(n / 8), {1, 8});
		DataCopy(abGm[r * 16], aout, n * 16);
		Duplicate(aout, (half)0, (int32_t)(n * 32));
		Brcb(aout, ain, (uint8_t)(n / 8), {2, 16});
		DataCopy(ab2Gm[r * 32], aout, n * 32);
		LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
		uint32_t dshape[2] = {n, 16}, sshape[2] = {n, 1};
		BroadCast<half, 2, 1>(aout, ain, dshape, sshape, tmp);
		DataCopy(bcGm[r * 16], aout, n * 16);
		uint32_t dshape3[2] = {n, 20};
		BroadCast<half, 2, 1>(aout, ain, dshape3, sshape);
		DataCopy(bc3Gm[r * 20], aout, n * 20);
		LocalTensor<float> bin = inBuf.Get<float>();
		LocalTensor<float> bout = outBuf.Get<float>();
		DataCopy(bin, bGm[r * 64], n * 64);
		PairReduceSum(bout, bin, (int32_t)n, 64, 1, 1, 8);
		DataCopy(bpGm[r * 32], bout, n * 32);
		uint32_t d0[2] = {4, 64}, s0[2] = {1, 64};
		BroadCast<float, 2, 0>(bout, bin, d0, s0);
		DataCopy(bc0Gm[r / TILE * 256], bout, 256);
		LocalTensor<float> cout = dstBuf.Get<float>();
		Duplicate(cout, 0.0f, (int32_t)(n * 64));
		SetVectorMask<float>(0, (1ULL << 48) - 1);
		Copy<float, false>(cout, bin, MASK_PLACEHOLDER, (uint8_t)n, {1, 1, 8, 8});
		ResetMask();
		DataCopy(cpGm[r * 64], cout, n * 64);
		Copy(cout, bin, 32, (uint8_t)n, {1, 2, 4, 8});
		DataCopy(cp2Gm[r * 32], cout, n * 32);
	}

	__aicore__ inline void Transposes()
	{
		uint32_t w = width;
		LocalTensor<float> tin = srcBuf.Get<float>();
		LocalTensor<float> tout = dstBuf.Get<float>();
		DataCopy(tin, tGm, 16 * w);
		TransDataTo5HDParams p32(false, false, (uint8_t)(w / 8), 16, 1);
		uint64_t dl[16], sl[16];
		for (int i = 0; i < 16; i++) {
			sl[i] = (uint64_t)tin[i * w].GetPhyAddr();
			dl[i] = (uint64_t)tout[i * 8].GetPhyAddr();
		}
		TransDataTo5HD<float>(dl, sl, p32);
		DataCopy(ttGm, tout, 16 * w);
		Transpose(tout, tin, tmpBuf.Get<uint8_t>(), TransposeParamsExt(1, 16, 1, (uint16_t)w, TransposeType::TRANSPOSE_NCHW2NHWC));
		DataCopy(teGm, tout, 16 * w);

		LocalTensor<half> hin = srcBuf.Get<half>();
		LocalTensor<half> hout = dstBuf.Get<half>();
		DataCopy(hin, hGm, 16 * w);
		LocalTensor<half> dt[16], st[16];
		for (int i = 0; i < 16; i++) {
			st[i] = hin[i * w];
			dt[i] = hout[i * 16];
		}
		TransDataTo5HD<half>(dt, st, TransDataTo5HDParams(false, false, (uint8_t)(w / 16), 16, 1));
		DataCopy(htGm, hout, 16 * w);
		for (uint32_t c = 0; c < w / 16; c++)
			Transpose(hin[c * 256], hout[c * 256]);
		DataCopy(hbGm, hin, 16 * w);

		LocalTensor<int8_t> qin = srcBuf.Get<int8_t>();
		LocalTensor<int8_t> qout = dstBuf.Get<int8_t>();
		LocalTensor<uint64_t> lists = listBuf.Get<uint64_t>();
		DataCopy(qin, qGm, 16 * w);
		PipeBarrier<PIPE_ALL>();
		for (int i = 0; i < 16; i++) {
			lists.SetValue(i, (uint64_t)qout[i * 32].GetPhyAddr());
			lists.SetValue(16 + i, (uint64_t)qin[i * w].GetPhyAddr());
		}
		PipeBarrier<PIPE_ALL>();
		// A single repeat is already moved by one stride (documented), so
		// one repeat takes strides 0.
		uint8_t reps = (uint8_t)(w / 32);
		uint16_t ds = reps == 1 ? 0 : 16, ss = reps == 1 ? 0 : 1;
		TransDataTo5HD<int8_t>(lists, lists[16], TransDataTo5HDParams(false, false, reps, ds, ss));
		TransDataTo5HD<int8_t>(lists, lists[16], TransDataTo5HDParams(true, true, reps, ds, ss));
		DataCopy(qtGm, qout, 16 * w);
		uint32_t qd[1] = {32}, qs[1] = {1};
		Broadcast<int8_t, 1, 0>(qout, qin, qd, qs);
		DataCopy(qbGm, qout, 32);
	}

	TPipe pipe;
	TBuf<QuePosition::VECCALC> inBuf, outBuf, srcBuf, dstBuf, tmpBuf, listBuf;
	GlobalTensor<half> aGm, hGm, abGm, ab2Gm, htGm, hbGm, bcGm, bc3Gm;
	GlobalTensor<float> bGm, tGm, bpGm, cpGm, cp2Gm, ttGm, teGm, bc0Gm;
	GlobalTensor<int8_t> qGm, qtGm, qbGm;
	uint32_t rows, width;
};

extern "C" __global__ __aicore__ void brcb_pair_trans(GM_ADDR a, GM_ADDR b, GM_ADDR t, GM_ADDR h, GM_ADDR q, GM_ADDR ab,
						      GM_ADDR ab2, GM_ADDR bp, GM_ADDR cp, GM_ADDR cp2, GM_ADDR tt, GM_ADDR te,
						      GM_ADDR ht,
						      GM_ADDR hb, GM_ADDR qt, GM_ADDR bc, GM_ADDR bc3, GM_ADDR bc0,
						      GM_ADDR qb, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	KernelBrcbPairTrans op;
	op.Init(a, b, t, h, q, ab, ab2, bp, cp, cp2, tt, te, ht, hb, qt, bc, bc3, bc0, qb, td.rows, td.width);
	op.Process();
}

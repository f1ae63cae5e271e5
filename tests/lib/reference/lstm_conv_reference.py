#!/usr/bin/python3
"""The PyTorch values behind tests/lib/test_lstm.c and tests/lib/test_conv.c (forward of
nn.LSTM, bidirectional, and nn.Conv1d with dilation, each sentence of a packed batch run
alone). Parameters and inputs are optest.h's ot_pattern values 0.1 * ((i * a mod 11) - 5).
Run with Debian's python3 (python3-torch): /usr/bin/python3 tests/lib/reference/lstm_conv_reference.py
and paste the printed rows into the tests."""
import torch
torch.set_default_dtype(torch.float64)
def ot_pattern(n, a): return torch.tensor([0.1*(((i*a)%11)-5) for i in range(n)])
IN,H=3,2
lstm=torch.nn.LSTM(IN,H,bidirectional=True)
with torch.no_grad():
    for k,(name,p) in enumerate(lstm.named_parameters()):
        p.copy_(ot_pattern(p.numel(),3+2*k).reshape(p.shape))
        # name, shape: weight_ih_l0 [8, 3], weight_hh_l0 [8, 2], ..., bias_hh_l0_reverse [8]
x=ot_pattern(4*IN,5).reshape(4,IN)
lens=[3,1]
out=[]
o=0
for L in lens:
    y,_=lstm(x[o:o+L].unsqueeze(1)); out.append(y.squeeze(1)); o+=L
print("lstm", ", ".join("%.15g"%v for v in torch.cat(out).flatten()))
conv=torch.nn.Conv1d(3,2,3,padding=2,dilation=2)
with torch.no_grad():
    conv.weight.copy_(ot_pattern(18,7).reshape(2,3,3)); conv.bias.copy_(ot_pattern(2,9))
x=ot_pattern(5*3,4).reshape(5,3)
out=[];o=0
for L in [4,1]:
    out.append(conv(x[o:o+L].T.unsqueeze(0)).squeeze(0).T); o+=L
print("conv", ", ".join("%.15g"%v for v in torch.cat(out).flatten()))

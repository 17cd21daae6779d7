#!/bin/bash
# usage: bench/quant_mutants.sh BIN_DIR — for every reference quantized layout, three mutants
# (a scale dropped, the packed values' last dim +1, a tensor added) must exit 1 naming the tensor
B=${1:-bin}; R=/work/shared/reference/quantized; O=/tmp/quantmut; ok=0; bad=0
for d in $R/*/*/; do
  s=$(basename $(dirname $d)); a=$(basename $d)
  scale=$(grep -P '\.(weight_scale|scales|weight_scale_inv)\t' $d/tensors.tsv | head -1 | cut -f1)
  mod=${scale%.*}
  vals=$(grep -P "^$mod\.(weight_packed|weight)\t" $d/tensors.tsv | grep -v BF16 | head -1 | cut -f1)
  for kind in drop bend add; do
    m=$O/$s-$a-$kind; rm -rf $m $m.src; mkdir -p $m.src; cp $d/*.json $m.src/
    case $kind in
      drop) grep -v -P "^$scale\t" $d/tensors.tsv > $m.src/tensors.tsv; want="missing: $scale";;
      bend) awk -F'\t' -v OFS='\t' -v n="$vals" '$1==n{sub(/\]$/,"",$3); k=split($3,p,", "); p[k]=p[k]+1; s=p[1]; for(i=2;i<=k;i++) s=s", "p[i]; $3=s"]"} {print}' $d/tensors.tsv > $m.src/tensors.tsv; want="mis-shaped: $vals";;
      add) cp $d/tensors.tsv $m.src/; printf "$mod.weight_bogus\tF32\t[1]\n" >> $m.src/tensors.tsv; want="unexpected: $mod.weight_bogus";;
    esac
    $B/mkmodel layout:$m.src $m >/dev/null
    out=$($B/fsinspect $m 2>&1); rc=$?
    if [ $rc = 1 ] && grep -qF "✗ $want" <<<"$out"; then ok=$((ok+1)); else bad=$((bad+1)); echo "FAIL $s/$a $kind rc=$rc want '$want'"; fi
  done
done
echo "mutants exiting 1 naming the tensor: $ok, otherwise: $bad"

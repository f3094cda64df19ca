#!/bin/sh
# assemble-model-repository CONFIGS REPOSITORY
#
# Builds a neuron-serve model repository (--model-repository) out of two volumes of a pod: the
# model configs of a ConfigMap and the NEFF files of a volume that can hold large binaries
# (a hostPath, a PersistentVolumeClaim, an image volume).
#
#   CONFIGS                 the ConfigMap's mount: one file "<model>.pbtxt" per model (its
#                           config.pbtxt); the files present are the models of the repository
#   REPOSITORY              an empty, writable directory (an emptyDir); it becomes the repository
#   REPOSITORY/.neffs/<model>/
#                           the NEFF volume, mounted inside the repository, one folder per model
#
# For each model it makes REPOSITORY/<model>/ with the ConfigMap's config.pbtxt and a relative
# symlink to every file of .neffs/<model>/. The links stay inside the repository, which the
# daemon insists on (a link out of it is PERMISSION_DENIED), and the daemon skips the hidden
# .neffs folder when it lists the models. A model without a NEFF folder gets its config only: the
# daemon then reports it FAILED (NOT_FOUND) and serves the others, as for any model that fails
# to load. Runs as the Kubernetes init container of the manifests in deploy/kubernetes; it may
# run again on a pod restart, so it first removes what a previous run made.
set -eu

if [ "$#" -ne 2 ]; then
  echo "usage: assemble-model-repository CONFIGS REPOSITORY" >&2
  exit 2
fi
configs=$1
repository=$2
neffs="$repository/.neffs"

if [ ! -d "$configs" ]; then
  echo "assemble-model-repository: '$configs' (the model configs) is not a directory" >&2
  exit 1
fi
if [ ! -d "$repository" ] || [ ! -w "$repository" ]; then
  echo "assemble-model-repository: '$repository' is not a writable directory" >&2
  exit 1
fi

# Leftovers of an earlier run: everything but the NEFF volume's mount point.
for entry in "$repository"/* "$repository"/.[!.]*; do
  [ -e "$entry" ] || [ -L "$entry" ] || continue
  [ "$entry" = "$neffs" ] && continue
  rm -rf "$entry"
done

count=0
for config in "$configs"/*.pbtxt; do
  [ -f "$config" ] || continue  # no configs at all: the glob stays unexpanded
  model=$(basename "$config" .pbtxt)
  mkdir "$repository/$model"
  cp "$config" "$repository/$model/config.pbtxt"
  linked=0
  if [ -d "$neffs/$model" ]; then
    for file in "$neffs/$model"/*; do
      [ -e "$file" ] || continue
      name=$(basename "$file")
      [ "$name" = config.pbtxt ] && continue  # the ConfigMap's config wins
      ln -s "../.neffs/$model/$name" "$repository/$model/$name"
      linked=$((linked + 1))
    done
  fi
  if [ "$linked" -eq 0 ]; then
    echo "assemble-model-repository: warning: model '$model' has no files in $neffs/$model" >&2
  fi
  echo "assemble-model-repository: model '$model': config.pbtxt and $linked NEFF file(s)" >&2
  count=$((count + 1))
done
echo "assemble-model-repository: $count model(s) in $repository" >&2

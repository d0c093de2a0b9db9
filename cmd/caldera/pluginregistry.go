package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/caldera-scheduler/caldera/internal/regularfile"
	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/runtime/ocimodule"
)

// newPluginPushCommand is `caldera plugin push FILE REF`.
func newPluginPushCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "push FILE.wasm REGISTRY/REPOSITORY:TAG",
		Short: "Publish a module to an OCI registry, for tier entries to name by wasm.image",
		Long: `Loads the module as the scheduler would (a file that is not a module of this ABI is
refused), then pushes it as an OCI artifact: config application/vnd.wasm.config.v1+json,
one layer application/vnd.wasm.content.layer.v1+wasm holding the module's bytes, and
the descriptor's name, ABI version, SDK and hooks as annotations. Prints the image
pinned by its manifest digest, which a tier entry names as wasm.image. The same module
pushes to the same digest every time.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := settings(cmd.Flags())
			remote, err := registryRemote(v)
			if err != nil {
				return err
			}
			file, ref := args[0], args[1]
			cache := cacheOf(cmd)
			defer cache.Close(context.Background())
			opts, err := inspectionOptions(file, cache)
			if err != nil {
				return err
			}
			// Read once: the bytes pushed are the bytes loaded and described.
			code, err := regularfile.Read(file, regularfile.MaxModule)
			if err != nil {
				return err
			}
			p, err := runtime.LoadBytes(cmd.Context(), code, opts)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			d := p.Descriptor()
			meta := ocimodule.Metadata{Name: d.Name, ABI: p.Version().String(), SDK: d.SDK, Hooks: d.Hooks}
			_ = p.Close(context.Background())
			pinned, _, err := remote.PushTo(cmd.Context(), ref, code, meta)
			if err != nil {
				return fmt.Errorf("pushing %s to %s: %w", file, ref, err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "pushed:     %s (%d bytes, sha256 %s)\n", file, len(code), p.SHA256())
			fmt.Fprintf(out, "image:      %s\n", pinned)
			fmt.Fprintf(out, "tier entry: {name: %s, arguments: {wasm.image: %q}}\n", strings.TrimSuffix(path.Base(file), ".wasm"), pinned)
			return nil
		},
	}
	addRegistryFlags(cmd.Flags())
	return cmd
}

// newPluginPullCommand is `caldera plugin pull REF`.
func newPluginPullCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pull REGISTRY/REPOSITORY(:TAG|@DIGEST)",
		Short: "Fetch a module from an OCI registry, as the scheduler does for wasm.image",
		Long: `Pulls the module the reference names, checking the manifest and the module against
their digests, into --output (default: the repository's last path element, .wasm).
Reads the layouts of caldera plugin push, wasm-to-oci and Kubewarden, Istio's oci
variant and the CNCF Wasm artifact layout; an image whose module is inside a tar layer
is refused. Uses and fills the pull cache under --wasm-cache-dir.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := settings(cmd.Flags())
			remote, err := registryRemote(v)
			if err != nil {
				return err
			}
			ref, err := ocimodule.ParseImage(args[0])
			if err != nil {
				return err
			}
			output := v.GetString("output")
			if output == "" {
				output = path.Base(ref.Repository) + ".wasm"
			}
			got, err := ocimodule.NewPuller(remote, ocimodule.NewStore(v.GetString("wasm-cache-dir"))).Pull(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if err := os.WriteFile(output, got.Code, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "pulled %s to %s (%d bytes, sha256 %s)\n", got.Image, output, len(got.Code), ocimodule.ContentDigest(got.Code))
			return nil
		},
	}
	cmd.Flags().StringP("output", "o", "", "file to write the module to (default: <repository's last element>.wasm)")
	addRegistryFlags(cmd.Flags())
	return cmd
}

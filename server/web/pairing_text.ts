/**
 * What `cueport pair` prints besides the code: the web remote's URL on each
 * LAN address and a QR code of the first, so a phone pairs by scanning.
 * @module
 */
import QRCode from "qrcode";
import { type InterfaceAddress, lanAddresses, remoteUrls } from "./urls.ts";

/**
 * The lines after the pairing code. The URLs carry the code in their
 * fragment (`#otp=`), so the page opened from the QR code pairs by itself.
 */
export async function pairingText(
  port: number,
  otp: string,
  options: {
    interfaces?: readonly InterfaceAddress[];
    /** The addresses the service listens on (`host`, from its lock file); absent: every one. */
    hosts?: readonly string[];
    /** Without a terminal's colour codes: for a file or a pipe. */
    plain?: boolean;
  } = {},
): Promise<string> {
  const urls = remoteUrls(port, { otp, ...options });
  if (urls.length === 0 && lanAddresses(options.interfaces).length > 0) {
    return `Remote: http://localhost:${port}/ (the service listens on ${
      options.hosts!.join(", ")
    } only, which no phone reaches: start it with --host ::,0.0.0.0 or a LAN address of this ` +
      "machine)";
  }
  if (urls.length === 0) {
    return `Remote: http://localhost:${port}/ (this machine has no LAN address: ` +
      "connect it to the show network and run cueport pair again)";
  }
  const lines = urls.map((url) => `Remote: ${url}`);
  // Two modules per character cell, so a QR code of a LAN URL fits 80 columns: in a terminal
  // with colour codes (dark on light whatever its theme), else in block characters alone.
  const qr = await QRCode.toString(
    urls[0]!,
    options.plain ? { type: "utf8" } : { type: "terminal", small: true },
  );
  return `${lines.join("\n")}\nScan with the phone's camera to open the remote and pair:\n${qr}`;
}

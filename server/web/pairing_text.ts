/**
 * What `cueport pair` prints besides the code: the web remote's URL on each
 * LAN address and a QR code of the first, so a phone pairs by scanning.
 * @module
 */
import QRCode from "qrcode";
import { type InterfaceAddress, remoteUrls } from "./urls.ts";

/**
 * The lines after the pairing code. The URLs carry the code in their
 * fragment (`#otp=`), so the page opened from the QR code pairs by itself.
 */
export async function pairingText(
  port: number,
  otp: string,
  options: { interfaces?: readonly InterfaceAddress[] } = {},
): Promise<string> {
  const urls = remoteUrls(port, { otp, ...options });
  if (urls.length === 0) {
    return `Remote: http://localhost:${port}/ (this machine has no LAN address: ` +
      "connect it to the show network and run cueport pair again)";
  }
  const lines = urls.map((url) => `Remote: ${url}`);
  // Small mode: two modules per character cell, so a QR code of a LAN URL fits 80 columns.
  const qr = await QRCode.toString(urls[0]!, { type: "terminal", small: true });
  return `${lines.join("\n")}\nScan with the phone's camera to open the remote and pair:\n${qr}`;
}

/** The remote client profile: what is offered, and which requests it lets through. */
import { describe, expect, it } from "vitest";
import { remoteAllows, remoteClientCapabilities, restrictForRemote } from "./profile.js";

describe("the remote client profile", () => {
  it("lets through only the file and terminal requests it allows", () => {
    for (const method of ["fs/read_text_file", "fs/write_text_file", "terminal/create"]) {
      expect(remoteAllows(method)).toBe(false);
    }
    expect(remoteAllows("fs/read_text_file", { readFiles: true })).toBe(true);
    expect(remoteAllows("fs/write_text_file", { readFiles: true })).toBe(false);
    expect(remoteAllows("fs/write_text_file", { writeFiles: true })).toBe(true);
    expect(remoteAllows("terminal/output", { terminal: true })).toBe(true);
    expect(remoteAllows("terminal/kill", { readFiles: true, writeFiles: true })).toBe(false);
    // Not the profile's business.
    expect(remoteAllows("session/request_permission")).toBe(true);
    expect(remoteAllows("_vendor/x")).toBe(true);
  });

  it("offers nothing local by default, and narrows what a client would offer", () => {
    expect(remoteClientCapabilities()).toEqual({
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
    });
    expect(
      restrictForRemote(
        {
          fs: { readTextFile: true, writeTextFile: true },
          terminal: true,
          auth: { terminal: true },
        },
        { readFiles: true },
      ),
    ).toEqual({
      fs: { readTextFile: true, writeTextFile: false },
      terminal: false,
      auth: { terminal: true },
    });
  });
});

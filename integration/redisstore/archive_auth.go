package redisstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ArchiveNamespace is the namespace to authenticate an Archive's entries
// under (NewHMAC) for keyPrefix ("" is DefaultKeyPrefix): the store's
// namespace with the archive's hash tag, so that an entry of one can never
// pass for the other's even under the same key.
func ArchiveNamespace(keyPrefix string) string {
	if keyPrefix == "" {
		keyPrefix = DefaultKeyPrefix
	}
	return keyPrefix + "{arc}:"
}

// errArchiveMisplaced is decode's error for a genuine entry stored under
// another conversation or entry id than it was written for.
var errArchiveMisplaced = errors.New("the stored entry was written for another conversation or entry")

// encode is the value stored for rec: the envelope and rec's JSON, sealed
// when ArchiveConfig.Seal is set.
func (a *Archive) encode(rec archiveRecord) ([]byte, error) {
	payload, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("encoding the messages: %w", err)
	}
	value := append(append([]byte(nil), archiveEnvelope...), payload...)
	if a.seal == nil {
		return value, nil
	}
	sealed, err := a.seal(value)
	if err != nil {
		return nil, fmt.Errorf("sealing the entry: %w", err)
	}
	return sealed, nil
}

// decode reads back the value stored under conv's entry: opened when
// ArchiveConfig.Open is set, then decoded and checked to be that entry's.
// A sealed entry must name its place; an unsealed one written before
// entries named it is taken as it is, since without Open nothing stops a
// writer to Redis anyway.
func (a *Archive) decode(raw []byte, conv, entry string) (archiveRecord, error) {
	var rec archiveRecord
	if a.open != nil {
		opened, err := a.open(raw)
		if err != nil {
			return rec, err
		}
		raw = opened
	}
	payload, ok := bytes.CutPrefix(raw, archiveEnvelope)
	if !ok || json.Unmarshal(payload, &rec) != nil {
		return rec, errors.New("the stored entry does not decode")
	}
	placed := rec.Conv == conv && rec.Entry == entry
	if !placed && (a.open != nil || rec.Conv != "" || rec.Entry != "") {
		return rec, errArchiveMisplaced
	}
	return rec, nil
}

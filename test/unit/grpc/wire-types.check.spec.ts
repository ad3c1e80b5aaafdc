import { loadA2aProto } from '../../../libs/a2a/src/bindings/grpc/a2a-proto.loader.js';
import { checkWireTypes } from '../../../libs/a2a/src/bindings/grpc/wire-types.check.js';

/**
 * The gRPC binding refuses a frame whose known fields carry the wrong wire type: protobufjs would read a number sent
 * for a message as that message's length and misread the rest (found by the fuzz suite: such a frame decoded into a
 * request under another tenant).
 */

const { root } = loadA2aProto();
const sendMessageRequest = root.lookupType('lf.a2a.v1.SendMessageRequest');
const listTasksRequest = root.lookupType('lf.a2a.v1.ListTasksRequest');

const delimited = (field: number, bytes: Buffer) =>
  Buffer.concat([Buffer.from([(field << 3) | 2, bytes.length]), bytes]);
const message = Buffer.concat([
  delimited(1, Buffer.from('m1')),
  Buffer.from([0x20, 0x01]),
  delimited(5, delimited(1, Buffer.from('hi'))),
]);

describe('checkWireTypes', () => {
  it('accepts what a protobuf encoder writes, maps, Structs and repeated fields included', () => {
    const encoded = sendMessageRequest
      .encode(
        sendMessageRequest.fromObject({
          tenant: 'acme',
          message: {
            message_id: 'm',
            role: 1,
            parts: [{ text: 'x', metadata: { fields: { a: { number_value: 1 } } } }],
            extensions: ['e1', 'e2'],
          },
          configuration: { accepted_output_modes: ['a', 'b'], history_length: 3, return_immediately: true },
          metadata: { fields: { k: { list_value: { values: [{ string_value: 's' }, { bool_value: true }] } } } },
        }),
      )
      .finish();
    expect(() => checkWireTypes(sendMessageRequest, encoded)).not.toThrow();
  });

  it('skips unknown fields of any wire type', () => {
    // Tags of fields 99 (varint) and 98 (fixed32), themselves varints.
    const unknown = Buffer.from([0x98, 0x06, 7, 0x95, 0x06, 1, 2, 3, 4]);
    expect(() => checkWireTypes(sendMessageRequest, Buffer.concat([delimited(2, message), unknown]))).not.toThrow();
  });

  it.each([
    [
      'a number where a message goes (metadata)',
      Buffer.concat([delimited(2, message), Buffer.from([(4 << 3) | 0, 100])]),
    ],
    [
      'a string where a number goes (message.role)',
      delimited(2, Buffer.concat([delimited(1, Buffer.from('m1')), delimited(4, Buffer.from('x'))])),
    ],
    ['a fixed64 where a message goes (message)', Buffer.concat([Buffer.from([(2 << 3) | 1]), Buffer.alloc(8)])],
  ])('refuses %s', (_case, bytes) => {
    expect(() => checkWireTypes(sendMessageRequest, bytes)).toThrow(/wire type/);
  });

  it('refuses a nested message that claims more bytes than its parent has', () => {
    const truncated = Buffer.concat([Buffer.from([(2 << 3) | 2, 50]), message]);
    expect(() => checkWireTypes(sendMessageRequest, truncated)).toThrow();
  });

  it('checks scalars: a varint int32 passes, a fixed32 one is refused', () => {
    expect(() => checkWireTypes(listTasksRequest, Buffer.from([(4 << 3) | 0, 5]))).not.toThrow(); // page_size
    expect(() => checkWireTypes(listTasksRequest, Buffer.from([(4 << 3) | 5, 0, 0, 0, 0]))).toThrow(/wire type/);
  });
});

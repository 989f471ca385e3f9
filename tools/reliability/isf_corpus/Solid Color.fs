/*{
    "CATEGORIES": [
        "Color",
        "Utility"
    ],
    "CREDIT": "by Carter Rosenberg",
    "DESCRIPTION": "demonstrates the use of color-type image inputs",
    "INPUTS": [
        {
            "DEFAULT": [
                1,
                0,
                0,
                1
            ],
            "NAME": "Color",
            "TYPE": "color"
        }
    ],
    "ISFVSN": "2"
}
*/

void main()
{
	gl_FragColor = Color;
}
